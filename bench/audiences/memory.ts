/**
 * Memory of the audience processor's user state (README "Audiences › Memory"):
 * `node --expose-gc --require tsx/cjs bench/audiences/memory.ts [users] [hours] [cacheUsers]`.
 * Without `cacheUsers` every state is in memory (a Map, as before the store); with it, states are
 * in the processor's LMDB store (in the OS temporary directory) with that many held in memory.
 * Reports heap, RSS, and RSS split into anonymous memory and mapped file pages (the store's pages
 * the kernel keeps in memory while it has room: page cache, given back under pressure).
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
import { LmdbUserDisk } from '../../src/audiences/state-disk';
import { CachedUserStates } from '../../src/audiences/user-states';
import fs from 'node:fs';
import os from 'node:os';

const HOUR = 3_600_000;
const users = Number(process.argv[2] ?? 100_000);
/** Hours of activity per user: 24 (busy, the default) or fewer (`1`: one identify, two tracks). */
const hours = Number(process.argv[3] ?? 24);
/** States held in memory with the store on disk; undefined: all in memory. */
const cacheUsers = process.argv[4] === undefined ? undefined : Number(process.argv[4]);
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
const store =
  cacheUsers === undefined
    ? undefined
    : new CachedUserStates({ disk: LmdbUserDisk.open(os.tmpdir(), 0), cacheUsers });
const partition = new AudiencePartition(0, store);
for (const c of defs.all()) {
  const creation = new Creation(partition, planCreation(partition, defs, c, HOUR), new Outbox());
  creation.start(time);
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
  partition.announceEvaluated(defs, time, out);
  applied += events.length;
}
const elapsedMs = performance.now() - startedMs;
// A periodic sync over every user (a disk store reads them all, a page at a time).
const syncStartedMs = performance.now();
let synced = 0;
for (const out of partition.resync(defs, time, 10_000)) synced += out.users.size;
const syncMs = performance.now() - syncStartedMs;
gc();
const bytes = process.memoryUsage().heapUsed - before;
if (partition.users.size !== users) throw new Error(`kept ${partition.users.size} users`);
const per100k = (bytes / users) * 100_000;
const mib = (n: number) => `${(n / 2 ** 20).toFixed(0)} MiB`;
/** VmRSS, RssAnon and RssFile of /proc/self/status (Linux), in bytes. */
const status = fs.readFileSync('/proc/self/status', 'utf8');
const kb = (field: string) =>
  Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
/** The size of the store's (unlinked) file, found among the process's open files. */
function storeBytes(): number | undefined {
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    const target = fs.readlinkSync(`/proc/self/fd/${fd}`, { encoding: 'utf8' }) as string;
    if (target.includes('audience-state-0-') && !target.includes('-lock'))
      return fs.statSync(`/proc/self/fd/${fd}`).size;
  }
  return undefined;
}
const onDisk = storeBytes();
process.stdout.write(
  `${users} users, ${hours} h of activity each, ${cacheUsers === undefined ? 'all in memory' : `LMDB store, ${cacheUsers} cached`}: ` +
    `heap +${mib(bytes)} (${(bytes / users).toFixed(0)} B per user, ${mib(per100k)} per 100k users), ` +
    `RSS ${mib(kb('VmRSS'))} (anonymous ${mib(kb('RssAnon'))}, file pages ${mib(kb('RssFile'))}); ` +
    (onDisk === undefined ? '' : `store file ${mib(onDisk)} (${(onDisk / users).toFixed(0)} B per user); `) +
    `${Math.round(applied / (elapsedMs / 1000))} events/s evaluated (one core, no Kafka), ` +
    `sync of ${synced} changed users in ${Math.round(syncMs)} ms\n`,
);
store?.close();
