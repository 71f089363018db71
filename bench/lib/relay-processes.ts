import { fork } from 'node:child_process';
import path from 'node:path';
import { exited } from '../../test/support/process';
import { processCpuMs } from './process-cpu';
import type { BenchContext } from './scenario';
import { pollUntil } from './wait';

/** The recorded relay in processes of its own (lib/relay-cluster.ts), fed as Hookline is. */
export interface RelayProcesses {
  baseUrl: string;
  /** The process id of its primary. */
  pid: number;
  /** CPU seconds (user + system) of the primary and its children so far (Linux /proc). */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

export interface RelayProcessesOptions {
  processes: number;
  /** Names its topic `<prefix>.floor-recorded`. */
  prefix: string;
  /** The receiver, the requests in flight at most, the source id of its records and the secret. */
  url: string;
  concurrency: number;
  sourceId: string;
  secret: string;
}

const START_TIMEOUT_MS = 120_000;
/** start:prod's V8 flags, as Hookline's processes run. */
const NODE_FLAGS = ['--max-semi-space-size=32', '--heap-growing-percent=50'];

export async function startRelayProcesses(
  ctx: BenchContext,
  options: RelayProcessesOptions,
): Promise<RelayProcesses> {
  const child = fork(path.join(__dirname, 'relay-cluster.js'), [], {
    env: {
      ...process.env,
      KAFKA_BROKERS: ctx.cluster.kafkaBrokers.join(','),
      SCHEMA_REGISTRY_URL: ctx.cluster.schemaRegistryUrl,
      RELAY_PROCESSES: String(options.processes),
      RELAY_PREFIX: options.prefix,
      RELAY_URL: options.url,
      RELAY_CONCURRENCY: String(options.concurrency),
      RELAY_SOURCE_ID: options.sourceId,
      RELAY_SECRET: options.secret,
    },
    execArgv: NODE_FLAGS,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let baseUrl: string | undefined;
  child.on('message', (m: { baseUrl?: string }) => (baseUrl = m.baseUrl));
  const started = await pollUntil(async () => baseUrl ?? (child.exitCode !== null ? 'exited' : undefined), {
    timeoutMs: START_TIMEOUT_MS,
    intervalMs: 100,
  });
  if (!started || started === 'exited') {
    child.kill('SIGKILL');
    throw new Error(`the recorded relay (${options.processes} processes) did not start`);
  }
  ctx.log(`relay: the recorded relay started as ${options.processes} process(es) on ${started}`);
  return {
    baseUrl: started,
    pid: child.pid!,
    cpuSeconds: () => (processCpuMs({ hooklinePids: [child.pid!] }).get('Hookline') ?? 0) / 1_000,
    stop: async () => {
      child.kill('SIGTERM');
      await exited(child);
    },
  };
}
