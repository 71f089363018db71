/**
 * `npm run bench [-- <scenario>...] [--scale=<n>] [--profile] [--app-env=KEY=VALUE ...]`
 *
 * Runs the selected scenarios (all by default, in the order of bench/scenarios/index.ts) against
 * the cluster resolveCluster finds or starts, prints a table and writes bench/results/latest.json.
 * A missed target prints a warning; only a scenario that fails to run makes the exit code 1.
 */
// First: what must be in place before kafkajs loads (the raw baselines' kafkajs is Hookline's).
import '../src/kafka/kafkajs-fork/preload';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { resolveCluster } from '../tools/devstack';
import { createLogger } from '../src/observability/logger';
import { applyKafkajsFixes } from '../src/kafka/kafkajs-fork';
import { projectRoot } from '../test/support/project-root';
import { Harness } from './harness/client';
import { formatReport, type BenchReport, type ScenarioRecord } from './lib/report';
import type { BenchContext } from './lib/scenario';
import { SCENARIOS } from './scenarios';

/**
 * The whole run is stopped after this long, whatever is still going, plus the budget of each
 * selected scenario that declares one (`backlog`: its fill and slowest allowed drain).
 */
const BASE_LIMIT_MS = 15 * 60_000;
const RESULTS_DIR = path.join(projectRoot(), 'bench', 'results');

interface Args {
  names: string[];
  scale: number;
  profile: boolean;
  appEnv: Record<string, string>;
}

class UsageError extends Error {}

function parseArgs(argv: string[]): Args {
  const args: Args = { names: [], scale: 1, profile: false, appEnv: {} };
  for (const arg of argv) {
    if (arg === '--profile') args.profile = true;
    else if (arg.startsWith('--app-env=')) {
      const [key, ...value] = arg.slice('--app-env='.length).split('=');
      if (!key || value.length === 0) throw new UsageError(`expected --app-env=KEY=VALUE, got ${arg}`);
      args.appEnv[key] = value.join('=');
    } else if (arg.startsWith('--scale=')) args.scale = Number(arg.slice('--scale='.length));
    else if (arg === '--help' || arg === '-h') {
      process.stdout.write(
        `usage: npm run bench [-- <scenario>...] [--scale=<n>] [--profile] [--app-env=KEY=VALUE ...]\nscenarios: ${SCENARIOS.map((s) => s.name).join(' ')}\n`,
      );
      process.exit(0);
    } else if (arg.startsWith('-')) throw new UsageError(`unknown option ${arg}`);
    else args.names.push(arg);
  }
  if (!(args.scale > 0)) throw new UsageError('--scale must be a positive number');
  const unknown = args.names.filter((n) => !SCENARIOS.some((s) => s.name === n));
  if (unknown.length > 0)
    throw new UsageError(
      `unknown scenario(s) ${unknown.join(', ')}; known: ${SCENARIOS.map((s) => s.name).join(', ')}`,
    );
  return args;
}

function log(message: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  const selected = args.names.length === 0 ? SCENARIOS : SCENARIOS.filter((s) => args.names.includes(s.name));
  process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';
  // Hookline's Kafka clients change kafkajs 2.2.4 process-wide (applyKafkajsFixes). Applied before any scenario, so that every raw kafkajs baseline runs with the same
  // kafkajs as Hookline, whichever scenario creates Hookline's first client.
  applyKafkajsFixes();
  const startedAt = new Date();
  const started = performance.now();

  const logger = createLogger({ name: 'hookline-bench', level: 'warn', destination: pino.destination(2) });
  log(
    'resolving the cluster (KAFKA_BROKERS/SCHEMA_REGISTRY_URL, a running `npm run stack -- up`, or a new local stack)',
  );
  const cluster = await resolveCluster({ logger, watchParentPid: process.pid });
  log(
    `cluster: ${cluster.kind}${cluster.started ? ' (started for this run)' : ''}, brokers ${cluster.kafkaBrokers.join(',')}`,
  );
  // test/support/app.ts (used to start Hookline) reads the cluster from env, as in the tests.
  process.env.KAFKA_BROKERS = cluster.kafkaBrokers.join(',');
  process.env.SCHEMA_REGISTRY_URL = cluster.schemaRegistryUrl;

  const harness = Harness.start();
  const ctx: BenchContext = {
    cluster: {
      kind: cluster.kind,
      kafkaBrokers: cluster.kafkaBrokers,
      schemaRegistryUrl: cluster.schemaRegistryUrl,
    },
    harness,
    scale: args.scale,
    profile: args.profile,
    appEnv: args.appEnv,
    resultsDir: RESULTS_DIR,
    log,
  };
  const records: ScenarioRecord[] = [];
  const report = (): BenchReport => ({
    startedAt: startedAt.toISOString(),
    durationMs: performance.now() - started,
    machine: {
      cpus: os.cpus().length,
      node: process.versions.node,
      platform: `${os.platform()} ${os.release()}`,
      loadAverage: os.loadavg(),
    },
    cluster: { kind: cluster.kind, kafkaBrokers: cluster.kafkaBrokers },
    scale: args.scale,
    appEnv: args.appEnv,
    scenarios: records,
    missed: records.flatMap((r) =>
      (r.result?.checks ?? []).filter((c) => !c.met).map((c) => `${r.name}: ${c.label}`),
    ),
  });
  const limitMs = selected.reduce((ms, s) => ms + (s.budgetMs?.(ctx) ?? 0), BASE_LIMIT_MS);
  const watchdog = setTimeout(() => {
    log(`the run exceeded ${Math.round(limitMs / 60_000)} min; stopping`);
    void finish(report(), 1).finally(() => process.exit(1));
  }, limitMs);
  const finish = async (r: BenchReport, code: number) => {
    await fs.mkdir(RESULTS_DIR, { recursive: true });
    await fs.writeFile(path.join(RESULTS_DIR, 'latest.json'), await formatJson(r));
    process.stdout.write(
      `${formatReport(r)}\n\nwrote ${path.relative(process.cwd(), path.join(RESULTS_DIR, 'latest.json'))}\n`,
    );
    harness.stop();
    await cluster.stop();
    return code;
  };

  for (const scenario of selected) {
    log(`--- ${scenario.name}: ${scenario.title}`);
    const t0 = performance.now();
    const record: ScenarioRecord = { name: scenario.name, title: scenario.title, durationMs: 0 };
    try {
      record.result = await scenario.run(ctx);
    } catch (err) {
      record.error = err instanceof Error ? (err.stack ?? err.message) : String(err);
      log(`${scenario.name} failed: ${record.error}`);
    }
    record.durationMs = performance.now() - t0;
    records.push(record);
  }
  clearTimeout(watchdog);
  return finish(report(), records.some((r) => r.error) ? 1 : 0);
}

/** JSON as prettier writes it, so `npm run lint` (prettier --check .) accepts the results file. */
async function formatJson(value: unknown): Promise<string> {
  const text = `${JSON.stringify(value, null, 2)}\n`;
  try {
    const prettier = await import('prettier');
    const file = path.join(RESULTS_DIR, 'latest.json');
    return await prettier.format(text, { ...(await prettier.resolveConfig(file)), filepath: file });
  } catch {
    return text;
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`bench: ${err.message} (npm run bench -- --help)\n`);
      process.exit(2);
    }
    log(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
