import { performance } from 'node:perf_hooks';
import type { Registry } from 'prom-client';

/** Where events are in the pipeline: Hookline's own counters, summed over labels. */
export interface StageCounts {
  atMs: number;
  accepted: number;
  routed: number;
  tasks: number;
  delivered: number;
  deferred: number;
  retried: number;
  inFlight: number;
}

async function sum(
  registry: Registry,
  name: string,
  filter: (labels: Record<string, unknown>) => boolean = () => true,
): Promise<number> {
  const metric = registry.getSingleMetric(name);
  if (!metric) return 0;
  const { values } = await metric.get();
  return values.filter((v) => filter(v.labels as Record<string, unknown>)).reduce((n, v) => n + v.value, 0);
}

export async function stageCounts(registry: Registry, startedAt: number): Promise<StageCounts> {
  return {
    atMs: performance.now() - startedAt,
    accepted: await sum(registry, 'hookline_ingest_events_total', (l) => l.outcome === 'accepted'),
    routed: await sum(registry, 'hookline_router_events_total', (l) => l.outcome === 'routed'),
    tasks: await sum(registry, 'hookline_router_tasks_total'),
    delivered: await sum(registry, 'hookline_deliveries_total', (l) => l.outcome === 'delivered'),
    deferred: await sum(registry, 'hookline_deliveries_total', (l) => l.outcome === 'deferred'),
    retried: await sum(registry, 'hookline_deliveries_total', (l) => l.outcome === 'retry_scheduled'),
    inFlight: await sum(registry, 'hookline_delivery_in_flight'),
  };
}

/**
 * Samples the stage counters every `intervalMs` until stopped: shows which stage falls behind
 * (accepted far ahead of routed = the router; tasks ahead of delivered = the worker).
 */
export async function sampleStages(
  registry: Registry,
  intervalMs = 1_000,
): Promise<{ stop(): Promise<StageCounts[]> }> {
  const startedAt = performance.now();
  const samples: StageCounts[] = [await stageCounts(registry, startedAt)];
  let pending: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    pending = stageCounts(registry, startedAt).then((s) => void samples.push(s));
  }, intervalMs);
  return {
    async stop() {
      clearInterval(timer);
      await pending;
      samples.push(await stageCounts(registry, startedAt));
      return samples;
    },
  };
}

/** One line per sample that changed: counters relative to the first sample, in-flight as is. */
export function formatStages(samples: StageCounts[]): string[] {
  const base = samples[0];
  if (!base) return [];
  const lines = [
    "  pipeline timeline (Hookline's counters since the measured run began):",
    '      t(s)  accepted    routed     tasks  delivered  deferred  in-flight',
  ];
  let prev: StageCounts | undefined;
  for (const s of samples) {
    if (prev && s.delivered === prev.delivered && s.accepted === prev.accepted && s.tasks === prev.tasks)
      continue;
    const n = (k: Exclude<keyof StageCounts, 'atMs' | 'inFlight'>, width: number) =>
      String(s[k] - base[k]).padStart(width);
    lines.push(
      `    ${(s.atMs / 1_000).toFixed(1).padStart(6)} ${n('accepted', 9)} ${n('routed', 9)} ${n('tasks', 9)} ${n('delivered', 10)} ${n('deferred', 9)} ${String(s.inFlight).padStart(10)}`,
    );
    prev = s;
  }
  return lines;
}

/** A Prometheus histogram of Hookline's, summed over the label sets `filter` keeps. */
export interface HistogramSnapshot {
  /** Cumulative counts by upper bound (`le`), ascending; the last bound is +Infinity. */
  buckets: { le: number; count: number }[];
  count: number;
  sum: number;
}

export async function histogramSnapshot(
  registry: Registry,
  name: string,
  filter: (labels: Record<string, unknown>) => boolean = () => true,
): Promise<HistogramSnapshot> {
  const snapshot: HistogramSnapshot = { buckets: [], count: 0, sum: 0 };
  const metric = registry.getSingleMetric(name);
  if (!metric) return snapshot;
  const byLe = new Map<number, number>();
  for (const v of (await metric.get()).values as { labels: object; value: number; metricName?: string }[]) {
    const labels = v.labels as Record<string, unknown>;
    if (!filter(labels)) continue;
    if (v.metricName === `${name}_bucket`) {
      const le = labels.le === '+Inf' ? Number.POSITIVE_INFINITY : Number(labels.le);
      byLe.set(le, (byLe.get(le) ?? 0) + v.value);
    } else if (v.metricName === `${name}_count`) snapshot.count += v.value;
    else if (v.metricName === `${name}_sum`) snapshot.sum += v.value;
  }
  snapshot.buckets = [...byLe].sort(([a], [b]) => a - b).map(([le, count]) => ({ le, count }));
  return snapshot;
}

/** What was observed between two snapshots of the same histogram. */
export function histogramDelta(after: HistogramSnapshot, before: HistogramSnapshot): HistogramSnapshot {
  const earlier = new Map(before.buckets.map((b) => [b.le, b.count]));
  return {
    buckets: after.buckets.map((b) => ({ le: b.le, count: b.count - (earlier.get(b.le) ?? 0) })),
    count: after.count - before.count,
    sum: after.sum - before.sum,
  };
}

/**
 * The q-quantile (0–1) of a histogram: `bound`, the upper bound of the bucket it falls in (what
 * the histogram can promise), and `estimate`, interpolated linearly inside that bucket as
 * Prometheus's histogram_quantile does. NaN when nothing was observed.
 */
export function histogramQuantile(h: HistogramSnapshot, q: number): { bound: number; estimate: number } {
  const total = h.buckets[h.buckets.length - 1]?.count ?? 0;
  if (total === 0) return { bound: Number.NaN, estimate: Number.NaN };
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (const b of h.buckets) {
    if (b.count >= rank) {
      if (b.le === Number.POSITIVE_INFINITY) return { bound: b.le, estimate: lower };
      const inBucket = b.count - below;
      const estimate = inBucket > 0 ? lower + ((b.le - lower) * (rank - below)) / inBucket : b.le;
      return { bound: b.le, estimate };
    }
    lower = b.le;
    below = b.count;
  }
  return { bound: Number.POSITIVE_INFINITY, estimate: lower };
}
