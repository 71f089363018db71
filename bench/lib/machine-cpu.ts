import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { formatSplit, processCpuMs, spentPer, type ProcessKind } from './process-cpu';

/**
 * The whole machine's CPU time (Linux /proc/stat, every process: Hookline, the broker, the schema
 * registry, the load generator, the receivers, anything else), to say how busy the cores were
 * while a figure was measured. Its resolution is the kernel's tick (10 ms).
 */
export interface MachineCpu {
  busyMs: number;
  idleMs: number;
  /** CPU ms of each kind of process (process-cpu.ts); Hooklines of their own are `hooklinePids`. */
  byProcess?: Map<ProcessKind, number>;
  hooklinePids?: readonly number[];
}

/** /proc/stat's first line is in USER_HZ, which Linux fixes at 100 per second for user space. */
const TICK_MS = 10;

export function machineCpu(options: { hooklinePids?: readonly number[] } = {}): MachineCpu | undefined {
  let text: string;
  try {
    text = readFileSync('/proc/stat', 'utf8');
  } catch {
    return undefined; // not Linux
  }
  const machine = parseProcStat(text);
  return machine && { ...machine, byProcess: processCpuMs(options), ...options };
}

/**
 * The aggregate `cpu` line of /proc/stat: user nice system idle iowait irq softirq steal [guest
 * guest_nice]. Guest time is already counted in user, so it is not added again.
 */
export function parseProcStat(text: string): MachineCpu | undefined {
  const line = text.split('\n', 1)[0]!.trim();
  if (!/^cpu\s/.test(line)) return undefined;
  const ticks = line.split(/\s+/).slice(1).map(Number);
  if (ticks.length < 4 || ticks.some((t) => !Number.isFinite(t))) return undefined;
  const [user, nice, system, idle, iowait = 0, irq = 0, softirq = 0, steal = 0] = ticks as number[];
  const busy = user! + nice! + system! + irq + softirq + steal;
  return { busyMs: busy * TICK_MS, idleMs: (idle! + iowait) * TICK_MS };
}

export interface MachineUse {
  /** Fraction of all cores' time that was busy. */
  busy: number;
  /** Busy CPU µs of the whole machine per unit of work (e.g. per delivered event). */
  busyUsPer: number;
  cores: number;
  /** µs per unit of work of each kind of process (this one, Hookline's, the harness, the broker…). */
  byProcessUsPer?: Map<ProcessKind, number>;
}

/** What the machine spent between `before` (a machineCpu() reading) and now, over `units` of work. */
export function machineUseSince(before: MachineCpu | undefined, units: number): MachineUse | undefined {
  const now = machineCpu(before?.hooklinePids ? { hooklinePids: before.hooklinePids } : {});
  if (!before || !now) return undefined;
  const busyMs = now.busyMs - before.busyMs;
  const totalMs = busyMs + now.idleMs - before.idleMs;
  return {
    busy: totalMs > 0 ? busyMs / totalMs : 0,
    busyUsPer: (busyMs * 1_000) / Math.max(1, units),
    cores: cpus().length,
    ...(before.byProcess &&
      now.byProcess && { byProcessUsPer: spentPer(before.byProcess, now.byProcess, units) }),
  };
}

export function formatMachineUse(use: MachineUse | undefined): string {
  if (!use) return 'machine CPU: not measured (no /proc/stat)';
  const split = use.byProcessUsPer && formatSplit(use.byProcessUsPer);
  return `machine ${(use.busy * 100).toFixed(0)}% busy (${use.cores} cores), ${use.busyUsPer.toFixed(0)} µs CPU per event, all processes${split ? ` (${split})` : ''}`;
}

/**
 * Runs `deliver` and what it cost per delivered event: the CPU of the processes `cpuSeconds`
 * counts (µs), and the whole machine's use.
 */
export async function costPerDelivered<T extends { delivered: number }>(
  cpuSeconds: () => number,
  deliver: () => Promise<T>,
  options: { hooklinePids?: readonly number[] } = {},
): Promise<{ run: T; cpuUs: number; machine: MachineUse | undefined }> {
  const cpuBefore = cpuSeconds();
  const machineBefore = machineCpu(options);
  const run = await deliver();
  return {
    run,
    cpuUs: ((cpuSeconds() - cpuBefore) * 1_000_000) / Math.max(1, run.delivered),
    machine: machineUseSince(machineBefore, run.delivered),
  };
}
