import type { Admin, Kafka } from 'kafkajs';
import type { Clock } from '../core/clock';
import { withDeadline } from '../core/deadline';
import { startFollower, type FollowedRecord } from '../kafka/follower';
import type { Logger } from '../observability/logger';

/**
 * The header of an attempt record whose task was delivered: where the task was read,
 * `<topic>:<partition>:<offset>` (a deliveries or delay topic record, or the event a router made
 * the first attempt of; the record key names the destination). Written only on delivered
 * attempts: for those the attempt record is the whole hand-off, so finding it proves the task
 * done (a retry or dead letter is written with its attempt record but could land without it).
 */
export const DELIVERED_FROM_HEADER = 'hookline-delivered-from';

export function deliveredFrom(topic: string, partition: number, offset: string): string {
  return `${topic}:${partition}:${offset}`;
}

/** `deliveredFrom` read back; undefined for anything else. */
export function parseDeliveredFrom(
  value: string,
): { topic: string; partition: number; offset: number } | undefined {
  const last = value.lastIndexOf(':');
  const middle = value.lastIndexOf(':', last - 1);
  if (middle <= 0) return undefined;
  const partition = Number(value.slice(middle + 1, last));
  const offset = Number(value.slice(last + 1));
  if (!Number.isSafeInteger(partition) || !Number.isSafeInteger(offset) || partition < 0 || offset < 0)
    return undefined;
  return { topic: value.slice(0, middle), partition, offset };
}

/** How far back a look-up reads the attempts topic (see DeliveredLookup). */
export const DELIVERED_LOOKBACK_MS = 120_000;
/** A look-up started this recently serves another partition's takeover too. */
const SHARE_WINDOW_MS = 2_000;
/** A read not done by then is given up (the takeover goes on without it). */
export const DELIVERED_LOOKUP_TIMEOUT_MS = 30_000;

export interface DeliveredLookupOptions {
  kafka: Kafka;
  admin: Admin;
  /** `<prefix>.attempts`. */
  attemptsTopic: string;
  /** Base of the private consumer group ids of the reads. */
  clientId: string;
  lookbackMs?: number;
  timeoutMs?: number;
  clock: Clock;
  logger: Logger;
}

/** What the attempt records of one partition say was delivered from it. */
interface Claims {
  /** Per offset, the destinations it was delivered to and when (Kafka record time, ms). */
  byOffset: Map<number, { destinations: string[]; atMs: number }>;
}

/**
 * Which task records a crashed worker delivered without committing them: the offsets of a
 * partition taken over unreleased (handover.ts) that delivered attempt records of the last
 * `lookbackMs` name. Its successor counts them done instead of delivering them again. Reads the
 * attempts topic's headers only (no decoding), up to its end at the time of the read; look-ups
 * within a couple of seconds of each other (a worker's partitions are taken over together) share
 * one read. A record missed (older, or written after the read) is delivered again: a duplicate,
 * never a loss.
 *
 * An attempt record names its task by topic, partition and offset only, which a topic deleted
 * and created again reuses. A task is written before it is delivered, so an attempt record older
 * than the partition's first record as it stands cannot be about any of its records: such claims
 * are left out (`trusted`), and a topic created again after its deliveries skips nothing, unless
 * the clock that stamped the attempt records (their writer's) runs ahead of the one that stamped
 * the new topic's first record (its writer's, or the broker's for LogAppendTime) by more than the
 * time between them. Clocks that disagree otherwise cost duplicates only.
 */
export class DeliveredLookup {
  private shared: { atMs: number; read: Promise<Map<string, Claims>> } | undefined;

  constructor(private readonly options: DeliveredLookupOptions) {}

  /** The offsets of `topic`/`partition` found delivered. */
  async offsets(topic: string, partition: number): Promise<number[]> {
    return [...(await this.byOffset(topic, partition)).keys()];
  }

  /**
   * Per offset of `topic`/`partition` found delivered, the destinations it was delivered to (an
   * event read by a router that made its first attempts has one task per destination).
   */
  async byOffset(topic: string, partition: number): Promise<Map<number, string[]>> {
    const nowMs = this.options.clock.now();
    if (!this.shared || nowMs - this.shared.atMs > SHARE_WINDOW_MS) {
      const read = this.read(nowMs - (this.options.lookbackMs ?? DELIVERED_LOOKBACK_MS));
      this.shared = { atMs: nowMs, read };
      read.catch(() => {
        if (this.shared?.read === read) this.shared = undefined; // not kept: the next takeover reads again
      });
    }
    const claims = (await this.shared.read).get(`${topic}:${partition}`);
    return claims ? this.trusted(topic, partition, claims) : new Map();
  }

  /**
   * The claims whose attempt record is not older than the partition's first record (see above).
   * Kafka's first offset whose record time is after a claim's is the log start exactly when the
   * first record is later than the claim. The log start is read after each such answer: it only
   * grows, so a start that moved in between errs towards "older" (work done again). Two admin
   * calls per claim time asked about: one time when no claim is that old, a binary search over
   * the claims' times otherwise. Bounded by the look-up's timeout, like the read.
   */
  private trusted(topic: string, partition: number, claims: Claims): Promise<Map<number, string[]>> {
    const timeoutMs = this.options.timeoutMs ?? DELIVERED_LOOKUP_TIMEOUT_MS;
    return withDeadline(
      this.keepTrusted(topic, partition, claims),
      timeoutMs,
      () => new Error(`${topic}:${partition}: the log start's time not read within ${timeoutMs} ms`),
    );
  }

  private async keepTrusted(
    topic: string,
    partition: number,
    claims: Claims,
  ): Promise<Map<number, string[]>> {
    const { admin, logger } = this.options;
    const ofPartition = <T extends { partition: number }>(entries: T[]): T => {
      const entry = entries.find((o) => o.partition === partition);
      if (!entry) throw new Error(`${topic} has no partition ${partition}`);
      return entry;
    };
    const olderThanLog = async (atMs: number) => {
      const after = ofPartition(await admin.fetchTopicOffsetsByTimestamp(topic, atMs + 1));
      const start = ofPartition(await admin.fetchTopicOffsets(topic));
      return Number(after.offset) <= Number(start.low);
    };
    const times = [...new Set([...claims.byOffset.values()].map((c) => c.atMs))].sort((a, b) => a - b);
    // The number of claim times older than the log: times[0, older) are, times[older, …) are not.
    let older = 0;
    if (await olderThanLog(times[0]!)) {
      let lo = 1;
      let hi = times.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (await olderThanLog(times[mid]!)) lo = mid + 1;
        else hi = mid;
      }
      older = lo;
    }
    const trustedFrom = older < times.length ? times[older]! : Infinity;
    const kept = new Map<number, string[]>();
    for (const [offset, claim] of claims.byOffset)
      if (claim.atMs >= trustedFrom) kept.set(offset, claim.destinations);
    if (kept.size < claims.byOffset.size) {
      logger.warn(
        { topic, partition, offsetsIgnored: claims.byOffset.size - kept.size },
        "attempt records older than the partition's first record (the topic was created again?): their offsets are handled again",
      );
    }
    return kept;
  }

  private async read(sinceMs: number): Promise<Map<string, Claims>> {
    const { kafka, admin, attemptsTopic, clientId, logger } = this.options;
    const found = new Map<string, Claims>();
    const follower = await startFollower({
      kafka,
      admin,
      topic: attemptsTopic,
      groupIdPrefix: `${clientId}-delivered-lookup`,
      sinceMs,
      bounded: true,
      logger: logger.child({ component: 'delivered-lookup' }),
      handleBatch: async (records) => {
        for (const record of records) {
          const from = headerValue(record);
          const parsed = from === undefined ? undefined : parseDeliveredFrom(from);
          if (!parsed) continue;
          const key = `${parsed.topic}:${parsed.partition}`;
          let claims = found.get(key);
          if (!claims) found.set(key, (claims = { byOffset: new Map() }));
          // An attempt record is keyed by its destination.
          const destinationId = record.key?.toString() ?? '';
          const claim = claims.byOffset.get(parsed.offset);
          if (!claim)
            claims.byOffset.set(parsed.offset, { destinations: [destinationId], atMs: record.timestampMs });
          else {
            claim.destinations.push(destinationId);
            claim.atMs = Math.min(claim.atMs, record.timestampMs);
          }
        }
      },
    });
    let timer: NodeJS.Timeout | undefined;
    const timeoutMs = this.options.timeoutMs ?? DELIVERED_LOOKUP_TIMEOUT_MS;
    try {
      await Promise.race([
        follower.whenCaughtUp(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`${attemptsTopic} not read within ${timeoutMs} ms`)),
            timeoutMs,
          );
        }),
      ]);
    } finally {
      clearTimeout(timer);
      await follower.stop();
    }
    return found;
  }
}

function headerValue(record: FollowedRecord): string | undefined {
  const value = record.headers?.[DELIVERED_FROM_HEADER];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined ? undefined : first.toString();
}
