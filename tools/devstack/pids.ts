import { existsSync, readFileSync } from 'node:fs';
import { pollUntil } from './wait';

/**
 * True while `pid` is a running process. A zombie (exited, not yet reaped, which happens to
 * orphans when PID 1 does not reap) counts as gone.
 */
export function isPidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Format: "pid (comm) state ..."; comm may contain spaces and parentheses.
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state === 'Z' || state === 'X';
  } catch {
    return false; // No /proc (macOS): trust kill(0).
  }
}

/** Sends `signal` to every process of the group led by `pgid`; a gone group is not an error. */
export function signalGroup(options: { pgid: number; signal: NodeJS.Signals }): void {
  if (options.pgid <= 0) return;
  try {
    process.kill(-options.pgid, options.signal);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

export interface TerminateGroupOptions {
  /** Process group to signal (the supervisor's pid: it is spawned as a group leader); 0 for none. */
  pgid: number;
  /** Processes that must be gone (supervisor and the program it runs). */
  pids: number[];
  /** Time between SIGTERM and SIGKILL. */
  graceMs: number;
  pollIntervalMs?: number;
}

/** SIGTERM to the group and the pids, wait until every pid is gone, SIGKILL after `graceMs`. Resolves when all are gone. */
export async function terminateGroup(options: TerminateGroupOptions): Promise<{ killed: boolean }> {
  const { pgid, pids, graceMs, pollIntervalMs = 100 } = options;
  const allGone = (): boolean => pids.every((pid) => !isPidAlive(pid));
  if (allGone()) return { killed: false };
  signalAll({ pgid, pids, signal: 'SIGTERM' });
  if (await waitFor({ condition: allGone, timeoutMs: graceMs, pollIntervalMs })) return { killed: false };
  signalAll({ pgid, pids, signal: 'SIGKILL' });
  await waitFor({ condition: allGone, timeoutMs: 5_000, pollIntervalMs });
  return { killed: true };
}

/** The group when there is one (one signal each: the supervisor handles a first SIGTERM gracefully), else each pid. */
function signalAll(options: { pgid: number; pids: number[]; signal: NodeJS.Signals }): void {
  if (options.pgid > 0) {
    signalGroup({ pgid: options.pgid, signal: options.signal });
    return;
  }
  for (const pid of options.pids) {
    try {
      process.kill(pid, options.signal);
    } catch {
      // Already gone.
    }
  }
}

async function waitFor(options: {
  condition: () => boolean;
  timeoutMs: number;
  pollIntervalMs: number;
}): Promise<boolean> {
  const done = await pollUntil({
    timeoutMs: options.timeoutMs,
    intervalMs: options.pollIntervalMs,
    probe: async () => (options.condition() ? true : undefined),
  });
  return done === true;
}

/**
 * True when `pid`'s command line contains `text`, so a recycled pid is never mistaken for ours.
 * Without /proc (macOS) it cannot tell and answers true.
 */
export function commandLineIncludes(options: { pid: number; text: string }): boolean {
  try {
    return readFileSync(`/proc/${options.pid}/cmdline`, 'utf8').replaceAll('\0', ' ').includes(options.text);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ENOENT' || !existsSync('/proc/self');
  }
}
