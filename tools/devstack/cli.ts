/**
 * `npm run stack -- <command>`: a local Kafka + schema registry for development.
 *
 *   up      start a detached stack (outlives this command), or show the running one
 *   down    stop the detached stack and delete its data
 *   status  show whether it is up (exit 0) or down (exit 1)
 *   run     start a stack in the foreground; Ctrl-C stops it
 *
 * Addresses go to stdout as `KAFKA_BROKERS=...` / `SCHEMA_REGISTRY_URL=...` lines (usable with
 * `export $(npm run -s stack -- up)`); logs and messages go to stderr.
 * Env: HOOKLINE_CACHE_DIR, LOG_LEVEL, HOOKLINE_STACK_OWNER_PID (`up`: the detached stack stops
 * when that process dies, e.g. a CI job's shell or a test runner).
 */
import pino from 'pino';
import { type Logger, createLogger } from '../../src/observability/logger';
import { ConfigError, errorMessage } from '../../src/core/errors';
import { StackError } from './errors';
import { ensureLockDir, withFileLock } from './lock';
import { resolveCacheDir } from './paths';
import { launchLocalStack } from './stack';
import {
  type StackState,
  isStateAlive,
  readState,
  removeState,
  stateLockPath,
  stopDetachedStack,
  writeState,
} from './state';

/** `up` may download first on a fresh machine: a second `up` waits that long for the first. */
const STATE_LOCK_TIMEOUT_MS = 20 * 60_000;
/** How often `run` checks that its launcher is still alive. */
const PARENT_POLL_INTERVAL_MS = 1_000;

interface CliContext {
  cacheDir: string;
  logger: Logger;
}

const COMMANDS: Record<string, (context: CliContext) => Promise<number>> = { up, down, status, run };

async function main(argv: string[]): Promise<number> {
  const command = COMMANDS[argv[0] ?? ''];
  if (!command) {
    process.stderr.write('usage: npm run stack -- up|down|status|run\n');
    return 2;
  }
  const logger = createLogger({
    name: 'hookline-stack',
    level: process.env.LOG_LEVEL ?? 'info',
    destination: pino.destination({ fd: 2, sync: true }),
  });
  const cacheDir = resolveCacheDir({});
  await ensureLockDir(stateLockPath(cacheDir));
  return command({ cacheDir, logger });
}

async function up(context: CliContext): Promise<number> {
  const { cacheDir, logger } = context;
  return withFileLock({
    lockPath: stateLockPath(cacheDir),
    timeoutMs: STATE_LOCK_TIMEOUT_MS,
    logger,
    task: async () => {
      const existing = await liveStateOrCleanup(context);
      if (existing) {
        printEndpoints({ state: existing, note: 'already running' });
        return 0;
      }
      const ownerPid = ownerPidFromEnv();
      const stack = await launchLocalStack({ logger, cacheDir });
      const state: StackState = {
        version: 1,
        startedAt: new Date().toISOString(),
        runDir: stack.runDir,
        ownerPid: ownerPid ?? null,
        kafkaBrokers: stack.kafkaBrokers,
        schemaRegistryUrl: stack.schemaRegistryUrl,
        ports: {
          kafka: stack.kafka.port,
          kafkaController: stack.kafka.controllerPort,
          registry: stack.registry.port,
        },
        processes: [stack.kafka.process, stack.registry.process].map((p) => ({
          name: p.name,
          supervisorPid: p.pid,
          programPid: p.programPid() ?? null,
        })),
      };
      try {
        await writeState({ cacheDir, state });
        // Only now stop watching this process: if it dies before, the supervisors stop the stack.
        await stack.release({ ownerPid });
      } catch (err) {
        await stack.stop();
        await removeState({ cacheDir });
        throw err;
      }
      printEndpoints({ state, note: 'started; stop it with `npm run stack -- down`' });
      return 0;
    },
  });
}

function ownerPidFromEnv(): number | undefined {
  const raw = process.env.HOOKLINE_STACK_OWNER_PID?.trim();
  if (!raw) return undefined;
  const pid = Number(raw);
  if (!Number.isInteger(pid) || pid <= 0)
    throw new ConfigError('HOOKLINE_STACK_OWNER_PID', `not a pid: ${raw}`);
  return pid;
}

async function down(context: CliContext): Promise<number> {
  const { cacheDir, logger } = context;
  return withFileLock({
    lockPath: stateLockPath(cacheDir),
    timeoutMs: STATE_LOCK_TIMEOUT_MS,
    logger,
    task: async () => {
      const state = await readState({ cacheDir });
      if (!state) {
        process.stderr.write('no stack is running\n');
        return 0;
      }
      const startedMs = Date.now();
      await stopDetachedStack({ cacheDir, state, logger });
      process.stderr.write(
        `stack stopped in ${Date.now() - startedMs} ms (run dir ${state.runDir} removed)\n`,
      );
      return 0;
    },
  });
}

async function status(context: CliContext): Promise<number> {
  const state = await readState({ cacheDir: context.cacheDir });
  if (state && isStateAlive(state)) {
    process.stdout.write(`status=up\n`);
    printEndpoints({ state, note: `up since ${state.startedAt}, run dir ${state.runDir}` });
    return 0;
  }
  if (state) {
    await withFileLock({
      lockPath: stateLockPath(context.cacheDir),
      timeoutMs: STATE_LOCK_TIMEOUT_MS,
      logger: context.logger,
      task: () => liveStateOrCleanup(context),
    });
  }
  process.stdout.write('status=down\n');
  return 1;
}

/** Foreground stack: stopped (and its data deleted) on Ctrl-C or SIGTERM, or when this process dies. */
async function run(context: CliContext): Promise<number> {
  const watch = watchLauncher();
  const stack = await launchLocalStack({ logger: context.logger, cacheDir: context.cacheDir });
  watch.onOrphaned(() => stack.stop());
  process.stdout.write(
    `KAFKA_BROKERS=${stack.kafkaBrokers.join(',')}\nSCHEMA_REGISTRY_URL=${stack.schemaRegistryUrl}\n` +
      `HOOKLINE_STACK_RUN_DIR=${stack.runDir}\n`,
  );
  process.stderr.write('stack is up; Ctrl-C stops it\n');
  // Ctrl-C is handled by the stack itself (cleanup.ts): it stops, then the signal ends this process.
  const exited = await Promise.race([
    stack.kafka.process.exited.then((exit) => ({ name: 'kafka', ...exit })),
    stack.registry.process.exited.then((exit) => ({ name: 'registry', ...exit })),
  ]);
  // Stopped by a signal: cleanup.ts re-raises it once the stack is down, which ends this process.
  if (stack.isStopping()) return 0;
  context.logger.error({ exit: exited }, 'a stack process exited on its own; stopping the stack');
  await stack.stop();
  return 1;
}

/**
 * A foreground stack belongs to whoever launched `run` (a terminal, a test): when that launcher
 * dies, this process is re-parented; then stop the stack (once one exists) and exit instead of
 * lingering. Nothing is logged then: stderr usually went with the launcher.
 */
function watchLauncher(): { onOrphaned(stop: () => Promise<void>): void } {
  const launcherPid = process.ppid;
  let stop: () => Promise<void> = async () => undefined; // During startup the exit hook stops the processes.
  const timer = setInterval(() => {
    if (process.ppid === launcherPid) return;
    clearInterval(timer);
    void stop().finally(() => process.exit(1));
  }, PARENT_POLL_INTERVAL_MS);
  timer.unref();
  return { onOrphaned: (fn) => (stop = fn) };
}

/** Returns the state if its processes are alive; otherwise stops leftovers and removes it. Call under the lock. */
async function liveStateOrCleanup(context: CliContext): Promise<StackState | undefined> {
  const state = await readState({ cacheDir: context.cacheDir });
  if (!state) return undefined;
  if (isStateAlive(state)) return state;
  context.logger.warn({ runDir: state.runDir }, 'found a stale stack state (processes gone); cleaning it up');
  await stopDetachedStack({ cacheDir: context.cacheDir, state, logger: context.logger });
  return undefined;
}

function printEndpoints(options: {
  state: Pick<StackState, 'kafkaBrokers' | 'schemaRegistryUrl'>;
  note: string;
}): void {
  process.stdout.write(
    `KAFKA_BROKERS=${options.state.kafkaBrokers.join(',')}\nSCHEMA_REGISTRY_URL=${options.state.schemaRegistryUrl}\n`,
  );
  process.stderr.write(`stack ${options.note}\n`);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    const known = err instanceof StackError || err instanceof ConfigError;
    process.stderr.write(`stack: ${known || !(err instanceof Error) ? errorMessage(err) : err.stack}\n`);
    process.exitCode = 1;
  },
);
