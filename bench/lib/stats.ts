/** Small, dependency-free statistics for benchmark figures. */

/** The p-th percentile (0–100) of the values, nearest-rank; NaN when there are none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

/** The index of the median value (the upper middle of an even count): the round a figure shows. */
export function medianIndex(values: readonly number[]): number {
  return values.map((_, i) => i).sort((a, b) => values[a]! - values[b]!)[values.length >> 1]!;
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

export interface Distribution {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

export function distribution(values: readonly number[]): Distribution {
  const sum = values.reduce((a, b) => a + b, 0);
  return {
    count: values.length,
    p50: percentile(values, 50),
    p90: percentile(values, 90),
    p99: percentile(values, 99),
    max: values.length === 0 ? Number.NaN : values.reduce((a, b) => Math.max(a, b), -Infinity),
    mean: values.length === 0 ? Number.NaN : sum / values.length,
  };
}

/** CPU ms spent on `count` items → µs per item. */
export function usPerItem(cpuMs: number, count: number): number {
  return (cpuMs * 1_000) / Math.max(1, count);
}

/** Items per second. */
export function perSecond(count: number, elapsedMs: number): number {
  return elapsedMs > 0 ? (count * 1_000) / elapsedMs : Number.NaN;
}

/** CPU time (user + system) of this process since `since`, in ms. */
export function cpuMsSince(since: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1_000;
}
