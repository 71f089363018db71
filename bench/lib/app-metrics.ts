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
