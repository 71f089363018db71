import { randomBytes } from 'node:crypto';
import { startTestApp, type TestApp } from '../../test/support/app';
import { createDestination, createSource } from '../../test/support/hookline';
import type { BenchContext } from './scenario';
import { deleteTopics } from './topics';

/** Topic partitions for Hookline's topics and the baselines' raw topics alike (the default config). */
export const BENCH_PARTITIONS = 6;

/** A Hookline process started in the bench process, on its own topic prefix. */
export interface BenchApp extends TestApp {
  /** A new enabled source; its write key. */
  source(name: string): Promise<{ id: string; writeKey: string }>;
  /** A new Webhooks destination of the source, one URL, signed like most real ones. */
  destination(sourceId: string, url: string, name: string): Promise<string>;
}

/**
 * Starts Hookline in this process (startApp through the integration tests' helper), with a fresh
 * topic prefix `bench-<scenario>-<random>`, HOOKLINE_LOG_LEVEL=warn, loopback allowed by the SSRF
 * guard (startTestApp's HOOKLINE_ALLOWED_NETWORKS: the harness's receivers listen on 127.0.0.1) and
 * the production defaults otherwise (6 partitions, 5 s delivery timeout, worker concurrency 1,000,
 * 50 per destination).
 * It creates its topics itself; `stop()` stops it and deletes them.
 */
export async function startBenchApp(
  ctx: BenchContext,
  scenario: string,
  env: Record<string, string> = {},
): Promise<BenchApp> {
  const prefix = `bench-${scenario}-${randomBytes(3).toString('hex')}`;
  const app = await startTestApp({
    HOOKLINE_TOPIC_PARTITIONS: String(BENCH_PARTITIONS),
    HOOKLINE_LOG_LEVEL: 'warn',
    ...env,
    ...ctx.appEnv,
    HOOKLINE_TOPIC_PREFIX: prefix,
  });
  ctx.log(
    `${scenario}: Hookline started in-process on ${app.baseUrl} (prefix ${prefix}, roles ${app.app.parts.config.roles.join(',')})`,
  );
  return {
    ...app,
    source: (name) => createSource(app, name),
    destination: (sourceId, url, name) =>
      createDestination(app, { sourceId, name, webhooks: [{ url }], sharedSecret: BENCH_SHARED_SECRET }),
    stop: async () => {
      await app.stop();
      await deleteTopics(ctx, prefix);
    },
  };
}

/** The bench destinations' shared secret: every delivery is signed, as with most real ones. */
export const BENCH_SHARED_SECRET = 'bench-shared-secret';

/** A run id that marks one run's events (messageIds `<runId>-<n>`). */
export function runId(label: string): string {
  return `${label}${randomBytes(4).toString('hex')}`;
}
