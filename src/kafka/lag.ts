import type { Admin } from 'kafkajs';
import { Gauge, type Registry } from 'prom-client';
import { errorMessage } from '../core/errors';
import type { Logger } from '../observability/logger';
import { decodeHoles } from './commit-holes';

/** How often consumer lag is measured. */
export const LAG_INTERVAL_MS = 5_000;

export interface LagMonitorOptions {
  admin: Admin;
  groupId: string;
  /** The partitions this member owns now. */
  assigned: () => Iterable<{ topic: string; partition: number }>;
  metrics: Registry;
  logger: Logger;
  intervalMs?: number;
}

/**
 * `hookline_consumer_lag{group, topic, partition}` for the partitions this member owns: the
 * broker's high watermark minus the group's committed offset, plus the holes below that offset
 * (messages still in flight, see commit-holes.ts), all read from the broker on a timer. It keeps moving when consumption is stuck (a consumer that commits nothing shows its
 * lag growing), which figures taken while consuming would not.
 */
export function startLagMonitor(options: LagMonitorOptions): { stop(): void } {
  const gauge = lagGauge(options.metrics);
  const labels = (topic: string, partition: number) => ({
    group: options.groupId,
    topic,
    partition: String(partition),
  });
  let previous = new Set<string>();
  /** Removes the series of partitions this member no longer owns: their new owner reports them. */
  const keepOnly = (reported: Set<string>) => {
    for (const key of previous) {
      if (reported.has(key)) continue;
      const i = key.lastIndexOf(':');
      gauge.remove(labels(key.slice(0, i), Number(key.slice(i + 1))));
    }
    previous = reported;
  };
  let running = false;
  const measure = async () => {
    if (running) return;
    running = true;
    try {
      const owned = [...options.assigned()];
      const topics = [...new Set(owned.map((p) => p.topic))];
      if (topics.length === 0) return keepOnly(new Set()); // a member left with no partition
      const [committed, ...highs] = await Promise.all([
        options.admin.fetchOffsets({ groupId: options.groupId, topics }),
        ...topics.map((topic) => options.admin.fetchTopicOffsets(topic)),
      ]);
      const high = new Map<string, { low: bigint; high: bigint }>();
      highs.forEach((offsets, i) => {
        for (const o of offsets)
          high.set(`${topics[i]}:${o.partition}`, { low: BigInt(o.low), high: BigInt(o.high) });
      });
      const done = new Map<string, { offset: bigint; holes: number }>();
      for (const t of committed) {
        for (const p of t.partitions) {
          const holes = decodeHoles(Number(p.offset), p.metadata).length;
          done.set(`${t.topic}:${p.partition}`, { offset: BigInt(p.offset), holes });
        }
      }
      const reported = new Set<string>();
      for (const { topic, partition } of owned) {
        const key = `${topic}:${partition}`;
        const range = high.get(key);
        if (range === undefined) continue;
        // -1: nothing committed yet: lag from the start. Holes below the offset are still to do.
        const { offset: committedAt, holes } = done.get(key) ?? { offset: -1n, holes: 0 };
        const from = committedAt < range.low ? range.low : committedAt;
        gauge.set(labels(topic, partition), Number(range.high > from ? range.high - from : 0n) + holes);
        reported.add(key);
      }
      keepOnly(reported);
    } catch (err) {
      options.logger.debug({ err: errorMessage(err), groupId: options.groupId }, 'lag not measured');
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void measure(), options.intervalMs ?? LAG_INTERVAL_MS).unref();
  void measure();
  return { stop: () => clearInterval(timer) };
}

function lagGauge(registry: Registry): Gauge<'group' | 'topic' | 'partition'> {
  const name = 'hookline_consumer_lag';
  const existing = registry.getSingleMetric(name);
  if (existing) return existing as Gauge<'group' | 'topic' | 'partition'>;
  return new Gauge({
    name,
    help: 'Messages between the committed offset and the partition end, plus those below it still in flight (its holes), per consumer group (measured on a timer).',
    labelNames: ['group', 'topic', 'partition'],
    registers: [registry],
  });
}
