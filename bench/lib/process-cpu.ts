import { readFileSync, readdirSync } from 'node:fs';

/**
 * The machine's CPU split by who spent it, from /proc/<pid>/stat: where a figure's "machine CPU per
 * event" went besides Hookline (the broker on the same two cores, the harness's load generator and
 * receivers). Resolution: the kernel's tick (10 ms) per process, so a round of 10,000 events reads
 * to about 1 µs per event.
 */

/** The kinds, in the order the split is printed. */
export const PROCESS_KINDS = [
  'this process',
  'Hookline',
  'harness',
  'Kafka broker',
  'schema registry',
] as const;
export type ProcessKind = (typeof PROCESS_KINDS)[number];

/** What /proc says of one process, as far as the split needs it. */
export interface ProcessStat {
  pid: number;
  ppid: number;
  /** The command name (`comm`), e.g. `node`, `java`. */
  comm: string;
  /** utime + stime, in clock ticks. */
  ticks: number;
}

export interface ClassifyOptions {
  /** The bench process. */
  selfPid: number;
  /** Hooklines started as processes of their own: these pids and their direct children. */
  hooklinePids?: readonly number[];
  /** A java process's command line (read only for those). */
  commandLine(pid: number): string;
}

/** Which kind `p` is, or undefined for the rest of the machine. */
export function classify(p: ProcessStat, options: ClassifyOptions): ProcessKind | undefined {
  const { selfPid, hooklinePids = [] } = options;
  if (p.pid === selfPid) return 'this process';
  if (hooklinePids.includes(p.pid) || hooklinePids.includes(p.ppid)) return 'Hookline';
  if (p.ppid === selfPid) return 'harness';
  if (p.comm !== 'java') return undefined;
  const commandLine = options.commandLine(p.pid);
  if (/\bkafka\.Kafka\b/.test(commandLine)) return 'Kafka broker';
  if (/apicurio/i.test(commandLine)) return 'schema registry';
  return undefined;
}

/**
 * A `/proc/<pid>/stat` line → its fields. The command name is between the first `(` and the last
 * `)` (it may hold spaces and parentheses); after it: state, ppid, …, utime (14th), stime (15th).
 */
export function parseStat(pid: number, line: string): ProcessStat | undefined {
  const open = line.indexOf('(');
  const close = line.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const fields = line.slice(close + 2).split(' ');
  const ppid = Number(fields[1]);
  const ticks = Number(fields[11]) + Number(fields[12]);
  if (!Number.isFinite(ppid) || !Number.isFinite(ticks)) return undefined;
  return { pid, ppid, comm: line.slice(open + 1, close), ticks };
}

/** CPU ms per kind of process, now (empty where /proc is not). */
export function processCpuMs(options: { hooklinePids?: readonly number[] } = {}): Map<ProcessKind, number> {
  const ms = new Map<ProcessKind, number>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return ms; // not Linux
  }
  const classifyOptions: ClassifyOptions = {
    selfPid: process.pid,
    ...(options.hooklinePids && { hooklinePids: options.hooklinePids }),
    commandLine: (pid) => readOrEmpty(`/proc/${pid}/cmdline`).replace(/\0/g, ' '),
  };
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = parseStat(Number(entry), readOrEmpty(`/proc/${entry}/stat`));
    const kind = stat && classify(stat, classifyOptions);
    if (kind) ms.set(kind, (ms.get(kind) ?? 0) + stat.ticks * TICK_MS);
  }
  return ms;
}

/** Per kind, the µs per unit of work spent between two readings; kinds that spent nothing are left out. */
export function spentPer(
  before: Map<ProcessKind, number>,
  after: Map<ProcessKind, number>,
  units: number,
): Map<ProcessKind, number> {
  const per = new Map<ProcessKind, number>();
  for (const kind of PROCESS_KINDS) {
    // A process gone meanwhile (a harness restarted) takes its ticks with it: never below 0.
    const spentMs = Math.max(0, (after.get(kind) ?? 0) - (before.get(kind) ?? 0));
    if (spentMs > 0) per.set(kind, (spentMs * 1_000) / Math.max(1, units));
  }
  return per;
}

/** "harness 20, Kafka broker 18": the split, in PROCESS_KINDS order. */
export function formatSplit(per: Map<ProcessKind, number>): string {
  return PROCESS_KINDS.filter((k) => per.has(k))
    .map((k) => `${k} ${per.get(k)!.toFixed(0)}`)
    .join(', ');
}

/** USER_HZ: Linux fixes it at 100 per second for user space. */
const TICK_MS = 10;

function readOrEmpty(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return ''; // gone meanwhile
  }
}
