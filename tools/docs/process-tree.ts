import { readFileSync, readdirSync } from 'node:fs';
import { isPidAlive, signalGroup } from '../devstack/pids';
import { delay } from '../devstack/wait';

/**
 * Stopping everything a command started, and making sure of it. A command runs as the leader of
 * its own process group, but what it starts may leave the group: the local Kafka stack that
 * `npm start` starts runs under supervisors that lead groups of their own (tools/devstack). So the
 * processes to stop are the group's members and every descendant of the leader, found in /proc.
 */

export interface ProcessInfo {
  pid: number;
  ppid: number;
  pgid: number;
  command: string;
}

/** `/proc/<pid>/stat` is `pid (comm) state ppid pgrp …`; comm may hold spaces and parentheses. */
export function parseStat(stat: string): Omit<ProcessInfo, 'command'> | undefined {
  const close = stat.lastIndexOf(')');
  const [, ppid, pgid] = stat.slice(close + 2).split(' ');
  const pid = Number.parseInt(stat, 10);
  if (close < 0 || !Number.isInteger(pid) || ppid === undefined || pgid === undefined) return undefined;
  return { pid, ppid: Number(ppid), pgid: Number(pgid) };
}

/** The processes of this machine (empty without /proc). */
export function processTable(): ProcessInfo[] {
  let names: string[];
  try {
    names = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    try {
      const info = parseStat(readFileSync(`/proc/${name}/stat`, 'utf8'));
      if (!info) return [];
      const command = readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      return [{ ...info, command }];
    } catch {
      return []; // Gone meanwhile.
    }
  });
}

/** The members of group `pgid` and the descendants of every one of them (and of `pgid` itself). */
export function treeOf(table: readonly ProcessInfo[], pgid: number): ProcessInfo[] {
  const children = new Map<number, ProcessInfo[]>();
  for (const p of table) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const found = new Map<number, ProcessInfo>();
  const queue = [pgid, ...table.filter((p) => p.pgid === pgid).map((p) => p.pid)];
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    for (const child of children.get(pid) ?? []) {
      if (found.has(child.pid)) continue;
      found.set(child.pid, child);
      queue.push(child.pid);
    }
  }
  for (const p of table) if (p.pgid === pgid) found.set(p.pid, p);
  return [...found.values()];
}

export interface StopTreeOptions {
  /** The group the command leads (its pid). */
  pgid: number;
  /** Time between SIGTERM to the group and SIGKILL to whatever of the tree is left. */
  graceMs: number;
  pollIntervalMs?: number;
}

export interface StoppedTree {
  /** How many processes the tree had while it stopped. */
  seen: number;
  /** Those still alive at the end: empty when everything is gone. */
  left: ProcessInfo[];
  /** Whether SIGTERM was not enough. */
  killed: boolean;
}

/**
 * SIGTERM to the group, then waits until every process of the tree (as seen now and while it
 * stops) is gone; after `graceMs`, SIGKILL to each one left, and 5 s more for them to go.
 */
export async function stopTree(options: StopTreeOptions): Promise<StoppedTree> {
  const { pgid, graceMs, pollIntervalMs = 200 } = options;
  const seen = new Map<number, ProcessInfo>();
  const alive = () => {
    for (const p of treeOf(processTable(), pgid)) seen.set(p.pid, p);
    return [...seen.values()].filter((p) => isPidAlive(p.pid));
  };
  const waitGone = async (timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    let left = alive();
    while (left.length > 0 && Date.now() < deadline) {
      await delay(pollIntervalMs);
      left = alive();
    }
    return left;
  };
  alive();
  signalGroup({ pgid, signal: 'SIGTERM' });
  const left = await waitGone(graceMs);
  if (left.length === 0) return { seen: seen.size, left, killed: false };
  signalGroup({ pgid, signal: 'SIGKILL' });
  for (const p of left) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
  const stillLeft = await waitGone(5_000);
  return { seen: seen.size, left: stillLeft, killed: true };
}
