import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { ADMIN_TOKEN, LOOPBACK_NETWORKS, TEST_SECRETS_KEY } from '../../test/support/app';
import { exited, spawnHookline } from '../../test/support/process';
import { projectRoot } from '../../test/support/project-root';
import { BENCH_PARTITIONS } from './app';
import { processCpuMs } from './process-cpu';
import type { BenchContext } from './scenario';
import { deleteTopics } from './topics';
import { pollUntil } from './wait';

/** Hookline as `npm start` runs it, in processes of its own: for what in-process cannot show (HOOKLINE_WORKERS). */
export interface SpawnedApp {
  baseUrl: string;
  prefix: string;
  /** The process id of the primary (the only process with HOOKLINE_WORKERS=1). */
  pid: number;
  source(name: string): Promise<{ id: string; writeKey: string }>;
  destination(sourceId: string, url: string, name: string): Promise<string>;
  /** CPU seconds (user + system) of the primary and its children so far (Linux /proc). */
  cpuSeconds(): number;
  /** SIGTERM, wait for the exit, delete the prefix's topics (unless `keepTopics`: a restart follows). */
  stop(options?: { keepTopics?: boolean }): Promise<void>;
}

export interface SpawnedAppOptions {
  /** Names the prefix `bench-<scenario>-<random>` and the log lines. */
  scenario: string;
  /** HOOKLINE_WORKERS. */
  workers: number;
  /** Run the compiled `dist/src/process/main.js` (`npm run start:prod`; build it first) instead of src/process/main.ts. */
  built?: boolean;
  /** Reuse this prefix (a restart on the topics of an earlier start) instead of a fresh one. */
  prefix?: string;
  /** More Hookline settings (HOOKLINE_ROLES, ...); ctx.appEnv wins over them. */
  env?: Record<string, string>;
  /** More node flags, after start:prod's own (so they win): an experiment, e.g. `--max-semi-space-size=16`. */
  nodeFlags?: string[];
}

const START_TIMEOUT_MS = 120_000;
const BUILD_TIMEOUT_MS = 300_000;

/** `npm run build` (tsc -p tsconfig.build.json → dist/), for a `built` start: incremental, seconds. */
export async function buildDist(ctx: BenchContext, scenario: string): Promise<void> {
  ctx.log(`${scenario}: npm run build (the scenario runs the compiled dist/src/process/main.js)`);
  await promisify(execFile)('npx', ['tsc', '-p', 'tsconfig.build.json'], {
    cwd: projectRoot(),
    timeout: BUILD_TIMEOUT_MS,
  });
}

/** Starts src/process/main.ts (or dist/) with HOOKLINE_WORKERS=`workers` on a fresh prefix, all roles by default, HTTP on 127.0.0.1:0. */
export async function startSpawnedApp(ctx: BenchContext, options: SpawnedAppOptions): Promise<SpawnedApp> {
  const { scenario, workers } = options;
  const prefix = options.prefix ?? `bench-${scenario}-${randomBytes(3).toString('hex')}`;
  const child = spawnHookline(
    {
      KAFKA_BROKERS: ctx.cluster.kafkaBrokers.join(','),
      SCHEMA_REGISTRY_URL: ctx.cluster.schemaRegistryUrl,
      HOOKLINE_WORKERS: String(workers),
      HOOKLINE_TOPIC_PREFIX: prefix,
      HOOKLINE_TOPIC_PARTITIONS: String(BENCH_PARTITIONS),
      HOOKLINE_HTTP_PORT: '0',
      HOOKLINE_HTTP_HOST: '127.0.0.1',
      HOOKLINE_ADMIN_TOKEN: ADMIN_TOKEN,
      HOOKLINE_SECRETS_KEY: TEST_SECRETS_KEY,
      HOOKLINE_ALLOWED_NETWORKS: LOOPBACK_NETWORKS,
      ...options.env,
      ...ctx.appEnv,
    },
    { built: options.built, nodeFlags: options.nodeFlags },
  );
  const baseUrl = await pollUntil(async () => /HTTP API\s+(http:\/\/\S+)/.exec(child.output.join(''))?.[1], {
    timeoutMs: START_TIMEOUT_MS,
    intervalMs: 200,
  });
  if (!baseUrl) {
    child.kill('SIGKILL');
    throw new Error(`Hookline (${workers} processes) did not start: ${child.output.join('').slice(-2_000)}`);
  }
  ctx.log(`${scenario}: Hookline started as ${workers} process(es) on ${baseUrl} (prefix ${prefix})`);
  const admin = async <T>(path: string, body: unknown): Promise<T> => {
    const res = await fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  return {
    baseUrl,
    prefix,
    pid: child.pid!,
    source: (name) => admin('/api/v1/sources', { name, enabled: true }),
    destination: async (sourceId, url, name) =>
      (
        await admin<{ id: string }>('/api/v1/destinations', {
          sourceId,
          name,
          enabled: true,
          settings: { webhooks: [{ url }], sharedSecret: 'bench-shared-secret' },
        })
      ).id,
    // utime + stime of the primary and its direct children (the workers), as process-cpu.ts counts them.
    cpuSeconds: () => (processCpuMs({ hooklinePids: [child.pid!] }).get('Hookline') ?? 0) / 1_000,
    stop: async (stopOptions = {}) => {
      child.kill('SIGTERM');
      await exited(child);
      if (!stopOptions.keepTopics) await deleteTopics(ctx, prefix);
    },
  };
}
