import type { Logger } from '../../src/observability/logger';
import { StackError } from './errors';
import { isBindFailure } from './ports';
import type { ProcessSpec, SupervisedProcess } from './process';
import { pollUntil } from './wait';

/** Starts a program under the stack's supervision and registers it with the stack. */
export type Spawner = (spec: ProcessSpec) => SupervisedProcess;

/** Common inputs of the stack's components (Kafka, registry). */
export interface ComponentOptions {
  java: string;
  /** Folder of this component inside the run dir; created by the component. */
  dir: string;
  /** Marker on every java command line (`-Dhookline.run.dir=...`) so `pgrep -f` finds the run's processes. */
  runDir: string;
  spawn: Spawner;
  logger: Logger;
  readyTimeoutMs: number;
}

/**
 * JVM flags shared by Kafka and the registry. Measured on a busy 2-core machine, both starting
 * at once: C1 only + serial GC brings both to ready in 7-11 s instead of 13-18 s with the JVM's
 * defaults (about 5 s when the machine is otherwise idle); the price is lower peak throughput. Env `HOOKLINE_STACK_JVM_OPTS` is appended, so later flags win
 * (e.g. `-XX:TieredStopAtLevel=4 -XX:+UseG1GC` for benchmarks).
 */
export function baseJvmArgs(options: { runDir: string; env?: NodeJS.ProcessEnv }): string[] {
  const extra = (options.env ?? process.env).HOOKLINE_STACK_JVM_OPTS?.split(/\s+/).filter(Boolean) ?? [];
  return [
    '-Xmx512m',
    '-XX:+UseSerialGC',
    '-XX:TieredStopAtLevel=1',
    '-Djava.awt.headless=true',
    `-Dhookline.run.dir=${options.runDir}`,
    ...extra,
  ];
}

/**
 * Polls `probe` until it succeeds; fails fast, with the log's tail, if the process exits first,
 * and fails with the log's tail at the deadline.
 */
export async function waitUntilReady(options: {
  process: SupervisedProcess;
  what: string;
  timeoutMs: number;
  probe: () => Promise<boolean>;
}): Promise<void> {
  const { process: proc, what, timeoutMs, probe } = options;
  const outcome = await pollUntil<'ready' | 'exited'>({
    timeoutMs,
    intervalMs: 200,
    probe: async () => {
      if (proc.exitInfo() !== undefined) return 'exited';
      return (await probe()) ? 'ready' : undefined;
    },
  });
  if (outcome === 'ready') return;
  const logTail = await proc.logTail({ lines: 40 });
  if (outcome === 'exited') {
    const exit = proc.exitInfo();
    throw new StackError(
      `${what} exited before it was ready (exit ${exit?.code ?? exit?.signal ?? 'unknown'}${exit?.error ? `: ${exit.error.message}` : ''}); log: ${proc.logFile}`,
      { stage: 'ready', logTail, cause: exit?.error },
    );
  }
  throw new StackError(`${what} was not ready after ${timeoutMs} ms; log: ${proc.logFile}`, {
    stage: 'ready',
    logTail,
  });
}

/** Runs `start` again with fresh ports (up to `attempts` times) when it failed because a port was taken. */
export async function retryOnBindFailure<T>(options: {
  attempts: number;
  logger: Logger;
  what: string;
  start: () => Promise<T>;
}): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await options.start();
    } catch (err) {
      const bindFailure = err instanceof StackError && isBindFailure(err.logTail ?? '');
      if (!bindFailure || attempt >= options.attempts) throw err;
      options.logger.warn({ what: options.what, attempt }, 'port taken meanwhile; retrying with new ports');
    }
  }
}
