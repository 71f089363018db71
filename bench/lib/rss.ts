import { readFileSync } from 'node:fs';

/** Resident set size and its high-water mark of a process, in MB (Linux /proc/<pid>/status). */
export function readMemory(pid: number): { rssMb: number; peakMb: number } | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined; // gone
  }
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}

/** One sample while a backlog drains: seconds since the start, events delivered so far, RSS. */
export interface RssSample {
  atS: number;
  delivered: number;
  rssMb: number;
}

export interface RssSummary {
  /** RSS of the first sample at or past 10%, 50%, 90% of `total` delivered (NaN if never reached). */
  at10: number;
  at50: number;
  at90: number;
  /** Highest sampled RSS. */
  maxSampledMb: number;
  /**
   * Least-squares slope of RSS against events delivered, over the samples from 10% delivered on
   * (before that: start-up, JIT, pools and buffers filling), in MB per 100,000 events.
   */
  slopeMbPer100k: number;
  /** What that slope adds from 10% to 100% of `total`, in MB: the growth a flat process does not have. */
  growthMb: number;
  /** Samples the slope was fitted on. */
  fitted: number;
}

/** The figures of a drain: RSS at 10/50/90% delivered and the trend after warm-up (10%). */
export function summariseRss(samples: readonly RssSample[], total: number): RssSummary {
  const at = (fraction: number) => samples.find((s) => s.delivered >= fraction * total)?.rssMb ?? Number.NaN;
  const warm = samples.filter((s) => s.delivered >= 0.1 * total);
  const slope = leastSquaresSlope(
    warm.map((s) => s.delivered),
    warm.map((s) => s.rssMb),
  );
  const slopeMbPer100k = slope * 100_000;
  return {
    at10: at(0.1),
    at50: at(0.5),
    at90: at(0.9),
    maxSampledMb: samples.reduce((m, s) => Math.max(m, s.rssMb), 0),
    slopeMbPer100k,
    growthMb: slope * 0.9 * total,
    fitted: warm.length,
  };
}

/** Slope of the least-squares line through (x, y); NaN with fewer than 2 distinct x. */
export function leastSquaresSlope(xs: readonly number[], ys: readonly number[]): number {
  const n = xs.length;
  if (n < 2) return Number.NaN;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i]! - mx) * (ys[i]! - my);
    sxx += (xs[i]! - mx) ** 2;
  }
  return sxx === 0 ? Number.NaN : sxy / sxx;
}
