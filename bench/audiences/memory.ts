/**
 * Heap used by the audience processor's in-memory state per 100k users (README "Audiences ›
 * Memory"): `node --expose-gc --require tsx/cjs bench/audiences/memory.ts [users] [hours]`.
 *
 * Each user of a source with 10 rule audiences and 5 computed traits: 3 traits from identify
 * calls, 24 hourly buckets in each of 2 windowed counters, one total-only counter, a first/last
 * value, and 15 announced values: a busy shop's user, not an idle one.
 */
import { Creation, planCreation } from '../../src/audiences/creation';
import { Definitions } from '../../src/audiences/definitions';
import { AudiencePartition, Outbox, type ProcessorTime } from '../../src/audiences/partition';
import type { Audience, ComputedTrait } from '../../src/catalog';
import type { HooklineEvent } from '../../src/events/types';

const HOUR = 3_600_000;
const users = Number(process.argv[2] ?? 100_000);
/** Hours of activity per user: 24 (busy, the default) or fewer (`1`: one identify, two tracks). */
const hours = Number(process.argv[3] ?? 24);
const now = Date.parse('2024-05-01T00:00:00.000Z');
const time: ProcessorTime = { nowMs: now, hourMs: HOUR, bucketMs: HOUR };
const stamp = { createdAt: '2024-01-01T00:00:00.000Z', updatedAt: '2024-01-01T00:00:00.000Z' };

const audiences: Audience[] = Array.from({ length: 10 }, (_, i) => ({
  id: `aud_${i}`,
  sourceId: 's',
  name: `a${i}`,
  key: `a${i}`,
  rule:
    i % 2 === 0
      ? { event: { name: i % 4 === 0 ? 'Order Completed' : 'Product Viewed', atLeast: i, withinDays: 1 } }
      : { trait: { name: 'plan', equals: `p${i}` } },
  ...stamp,
}));
const traits: ComputedTrait[] = [
  { count: { event: 'Order Completed' } },
  { sum: { event: 'Order Completed', property: 'total', withinDays: 1 } },
  { last: { event: 'Order Completed', property: 'total' } },
  { first: { event: 'Product Viewed', property: 'sku' } },
  { lastTrait: 'plan' },
].map((compute, i) => ({ id: `ctr_${i}`, sourceId: 's', name: `t${i}`, key: `t${i}`, compute, ...stamp }));
const defs = new Definitions(audiences, traits);

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const partition = new AudiencePartition(0);
for (const c of defs.all()) {
  const creation = new Creation(partition, planCreation(partition, defs, c, HOUR), new Outbox());
  creation.start();
  creation.finish(time);
}
gc();
const before = process.memoryUsage().heapUsed;
const startedMs = performance.now();
let applied = 0;
const base = { messageId: 'm', receivedAt: new Date(now).toISOString(), sourceId: 's' };
for (let u = 0; u < users; u++) {
  const userId = `user-${u.toString().padStart(8, '0')}`;
  const out = new Outbox();
  const at = (h: number) => new Date(now - h * HOUR).toISOString();
  const events: HooklineEvent[] = [
    {
      ...base,
      type: 'identify',
      userId,
      timestamp: at(0),
      traits: { plan: `p${u % 10}`, email: `${userId}@example.com`, age: u % 90 },
    },
  ];
  for (let h = 0; h < hours; h++) {
    events.push({
      ...base,
      type: 'track',
      userId,
      timestamp: at(h),
      event: 'Order Completed',
      properties: { total: h },
    });
    events.push({
      ...base,
      type: 'track',
      userId,
      timestamp: at(h),
      event: 'Product Viewed',
      properties: { sku: `sku-${h}` },
    });
  }
  for (const e of events) partition.applyEvent(e, defs, time, out);
  applied += events.length;
}
const elapsedMs = performance.now() - startedMs;
gc();
const bytes = process.memoryUsage().heapUsed - before;
if (partition.users.size !== users) throw new Error(`kept ${partition.users.size} users`);
const per100k = (bytes / users) * 100_000;
process.stdout.write(
  `${users} users, ${hours} h of activity each: ${(bytes / 2 ** 20).toFixed(1)} MiB heap, ${(bytes / users).toFixed(0)} B per user, ` +
    `${(per100k / 2 ** 20).toFixed(0)} MiB per 100k users; ` +
    `${Math.round(applied / (elapsedMs / 1000))} events/s evaluated (one core, no Kafka)\n`,
);
