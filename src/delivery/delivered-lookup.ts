import type { Admin, Kafka } from 'kafkajs';
import type { Clock } from '../core/clock';
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

/**
 * Which task records a crashed worker delivered without committing them: the offsets of a
 * partition taken over unreleased (handover.ts) that delivered attempt records of the last
 * `lookbackMs` name. Its successor counts them done instead of delivering them again. Reads the
 * attempts topic's headers only (no decoding), up to its end at the time of the read; look-ups
 * within a couple of seconds of each other (a worker's partitions are taken over together) share
 * one read. A record missed (older, or written after the read) is delivered again: a duplicate,
 * never a loss.
 */
export class DeliveredLookup {
  private shared: { atMs: number; read: Promise<Map<string, Map<number, string[]>>> } | undefined;

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
    return (await this.shared.read).get(`${topic}:${partition}`) ?? new Map();
  }

  private async read(sinceMs: number): Promise<Map<string, Map<number, string[]>>> {
    const { kafka, admin, attemptsTopic, clientId, logger } = this.options;
    const found = new Map<string, Map<number, string[]>>();
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
          let offsets = found.get(key);
          if (!offsets) found.set(key, (offsets = new Map()));
          // An attempt record is keyed by its destination.
          const destinationId = record.key?.toString() ?? '';
          const destinations = offsets.get(parsed.offset);
          if (destinations) destinations.push(destinationId);
          else offsets.set(parsed.offset, [destinationId]);
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
