import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../src/observability/logger';
import { stackStateDir, stackStateFile } from './paths';
import { commandLineIncludes, isPidAlive, terminateGroup } from './pids';
import { STOP_GRACE_MS } from './process';

/** `<cacheDir>/stack/state.json`: the detached stack started by `npm run stack -- up`. */
export interface StackState {
  version: 1;
  startedAt: string;
  runDir: string;
  /** The stack stops when this process dies (env HOOKLINE_STACK_OWNER_PID at `up`); null: never. */
  ownerPid: number | null;
  kafkaBrokers: string[];
  schemaRegistryUrl: string;
  ports: { kafka: number; kafkaController: number; registry: number };
  processes: StackProcessState[];
}

export interface StackProcessState {
  name: string;
  /** The supervisor: leader of the process group. */
  supervisorPid: number;
  /** The java process. */
  programPid: number | null;
}

export async function readState(options: { cacheDir: string }): Promise<StackState | undefined> {
  try {
    const parsed = JSON.parse(await fs.readFile(stackStateFile(options.cacheDir), 'utf8')) as StackState;
    return parsed.version === 1 && Array.isArray(parsed.processes) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** Written atomically (temp file + rename): a reader never sees half a state. */
export async function writeState(options: { cacheDir: string; state: StackState }): Promise<void> {
  const file = stackStateFile(options.cacheDir);
  await fs.mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(temp, JSON.stringify(options.state, null, 2));
  await fs.rename(temp, file);
}

export async function removeState(options: { cacheDir: string }): Promise<void> {
  await fs.rm(stackStateFile(options.cacheDir), { force: true });
}

/** Lock serialising `up`/`down` of the detached stack. */
export function stateLockPath(cacheDir: string): string {
  return path.join(stackStateDir(cacheDir), 'lock');
}

/** A pid of this state that is still one of the stack's processes (not a recycled pid). */
function isOurs(options: { pid: number | null; runDir: string }): boolean {
  return (
    options.pid !== null &&
    isPidAlive(options.pid) &&
    commandLineIncludes({ pid: options.pid, text: options.runDir })
  );
}

/** True when every java process of the state is alive. */
export function isStateAlive(state: StackState): boolean {
  return (
    state.processes.length > 0 &&
    state.processes.every((p) => isOurs({ pid: p.programPid, runDir: state.runDir }))
  );
}

/**
 * Stops whatever is left of a detached stack (SIGTERM, SIGKILL after the grace period), deletes
 * its run dir and the state file. Safe on a stale state: only processes whose command line names
 * the run dir are signalled.
 */
export async function stopDetachedStack(options: {
  cacheDir: string;
  state: StackState;
  logger: Logger;
  graceMs?: number;
}): Promise<void> {
  const { state, logger } = options;
  await Promise.all(
    state.processes.map(async (p) => {
      const pids = [p.supervisorPid, p.programPid].filter((pid): pid is number =>
        isOurs({ pid, runDir: state.runDir }),
      );
      if (pids.length === 0) return;
      const leaderIsOurs = pids.includes(p.supervisorPid);
      const { killed } = await terminateGroup({
        pgid: leaderIsOurs ? p.supervisorPid : 0,
        pids,
        graceMs: options.graceMs ?? STOP_GRACE_MS,
      });
      logger.debug({ name: p.name, pids, killed }, 'stopped');
    }),
  );
  await fs.rm(state.runDir, { recursive: true, force: true });
  await removeState({ cacheDir: options.cacheDir });
}
