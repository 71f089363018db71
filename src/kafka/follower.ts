import { randomBytes } from 'node:crypto';
import type { Admin, Kafka } from 'kafkajs';
import { ReadProgress } from './progress';
import { errorMessage } from '../core/errors';
import type { Logger } from '../observability/logger';
import { PartitionCursors, readRanges, type PartitionRange } from './positions';
import { retryTransient } from '../core/backoff';
import { isRetriableKafkaError } from './client';
import { restartAfterCrashes, stoppableRetry } from './crash-restart';

/** One record as a follower hands it over. */
export interface FollowedRecord {
  partition: number;
  offset: string;
  /** The record's Kafka timestamp (producer time). */
  timestampMs: number;
  key: Buffer | null;
  value: Buffer | null;
  /** The record's headers, as kafkajs hands them over (absent when it has none). */
  headers?: Record<string, Buffer | string | (Buffer | string)[] | undefined>;
}

export interface FollowerOptions {
  kafka: Kafka;
  admin: Admin;
  topic: string;
  /** Start of the consumer group id; a random suffix makes the group private to this follower. */
  groupIdPrefix: string;
  /** Start at the first record written at or after this time; from the beginning when absent. */
  sinceMs?: number;
  /** Read only up to the high watermarks observed at start, instead of following the topic live. */
  bounded?: boolean;
  /** Read only these partitions of the topic (a shard of it); every partition when absent. */
  partitions?: number[];
  /**
   * Start these partitions at these offsets instead (where an earlier follower stopped: its
   * `nextOffsets()`); the others as `sinceMs` says.
   */
  startAt?: ReadonlyMap<number, string>;
  /**
   * Handles some new records of one partition, in offset order. A rejection stops the follower
   * (see `whenCaughtUp`); a live index should handle its own bad records instead of throwing.
   */
  handleBatch(records: FollowedRecord[]): Promise<void>;
  /**
   * The broker answers a fetch once this many bytes are there (kafkajs `minBytes`; default 1: at
   * the first record), or after the follower's fetch wait. For a busy topic whose reader may lag
   * that long, it gathers records into fewer, larger fetches.
   */
  fetchMinBytes?: number;
  logger: Logger;
}

export interface Follower {
  groupId: string;
  /** What was to be read at start, per partition. */
  ranges: PartitionRange[];
  /** Read up to the high watermarks observed at start. */
  caughtUp(): boolean;
  /** Per partition, the offset of the next record it would hand over (see `startAt`). */
  nextOffsets(): Map<number, string>;
  /**
   * False once the follower failed (its handler threw) or was stopped. A crash of its consumer is
   * not a failure: kafkajs, or crash-restart.ts, restarts it where its cursors are.
   */
  following(): boolean;
  /** Resolves once caught up; rejects if the follower failed or was stopped before. */
  whenCaughtUp(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * How long the broker holds a follower's fetch when there is nothing new (kafkajs
 * `maxWaitTimeInMs`). A record written meanwhile answers it at once. It also bounds how long
 * `stop()` waits for the fetch in flight: Kafka's own default (500 ms) makes an idle process a
 * little cheaper but every stop slower, five followers stopping one after another.
 */
export const FETCH_WAIT_MS = 100;

/**
 * Reads one topic with a consumer group of its own that never commits (like the catalog
 * materialiser), from the beginning or from a point in time, either following it live or up to
 * where it stood at start. Records are handed over once each, in order per partition.
 */
export async function startFollower(options: FollowerOptions): Promise<Follower> {
  const { kafka, admin, topic } = options;
  const bounded = options.bounded ?? false;
  const groupId = `${options.groupIdPrefix}-${randomBytes(6).toString('hex')}`;
  const logger = options.logger.child({ topic, groupId });

  // kafkajs's admin gives up at once on NOT_LEADER_FOR_PARTITION, which a busy broker answers for
  // a while after creating a topic: retry those look-ups (about 10 s in all). Also on a TypeError
  // from inside it: a look-up racing another on the same admin can find the topic's metadata
  // empty (`Cannot destructure property 'partitions' of 'high.pop(...)'`, seen at a start).
  const lookUp = <T>(what: string, fn: () => Promise<T>) =>
    retryTransient(fn, {
      isRunning: () => true,
      isRetriable: (err) => isRetriableKafkaError(err) || err instanceof TypeError,
      maxAttempts: 8,
      backoff: { initialDelayMs: 100, maxDelayMs: 2_000 },
      logger,
      context: { lookUp: what },
    });
  const only = options.partitions && new Set(options.partitions);
  const mine = <T extends { partition: number }>(list: T[]) =>
    only ? list.filter((p) => only.has(p.partition)) : list;
  const allWatermarks = await lookUp('watermarks', () => admin.fetchTopicOffsets(topic));
  const watermarks = mine(allWatermarks);
  const { sinceMs, startAt } = options;
  const starts =
    sinceMs === undefined
      ? watermarks.map((w) => ({ partition: w.partition, offset: w.low }))
      : mine(await lookUp('offsets by time', () => admin.fetchTopicOffsetsByTimestamp(topic, sinceMs)));
  const ranges = readRanges(
    starts.map((s) => ({ partition: s.partition, offset: startAt?.get(s.partition) ?? s.offset })),
    watermarks,
  );
  const cursors = new PartitionCursors(ranges, { bounded });
  const progress = new ReadProgress();
  progress.expect(ranges.map((r) => ({ partition: r.partition, low: r.start, high: r.end })));

  let failure: Error | undefined;
  const failureListeners = new Set<(err: Error) => void>();
  const fail = (err: Error) => {
    if (failure) return;
    failure = err;
    for (const listener of failureListeners) listener(err);
  };

  let stopped = false;
  /** Stopped, or failed (its handler threw): its consumer is no longer wanted. */
  const givenUp = () => stopped || failure !== undefined;
  const consumer = kafka.consumer({
    groupId,
    maxWaitTimeInMs: FETCH_WAIT_MS,
    minBytes: options.fetchMinBytes ?? 1,
    allowAutoTopicCreation: false,
    retry: stoppableRetry(givenUp),
  });
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    // One kafkajs restarts itself (its retries ran out: Kafka away); another is restarted below.
    if (payload.restart)
      logger.error({ err: payload.error }, 'follower consumer crashed; kafkajs restarts it');
  });
  const pause = (partitions: number[]) => consumer.pause([{ topic, partitions }]);
  // At every join (the start, and each restart after a crash) the group is new to kafkajs: private,
  // it never commits, so kafkajs would read from the log start again, and it forgot the pauses.
  // Go on where the cursors are instead, and pause what this follower does not read. A fetch from
  // the beginning that races these seeks is harmless: the cursors drop what it repeats.
  consumer.on(consumer.events.GROUP_JOIN, () => {
    if (failure) return pause(allWatermarks.map((w) => w.partition)); // failed: reads no more
    if (only) {
      const others = allWatermarks.map((w) => w.partition).filter((p) => !only.has(p));
      if (others.length > 0) pause(others);
    }
    const next = cursors.nextOffsets();
    for (const r of ranges) {
      if (bounded && cursors.finished(r.partition)) pause([r.partition]);
      else consumer.seek({ topic, partition: r.partition, offset: next.get(r.partition) ?? r.start });
    }
  });
  const crashRestart = restartAfterCrashes({
    consumer,
    stopping: givenUp,
    run,
    context: { topic, groupId },
    logger,
  });

  function run(): Promise<void> {
    return consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch, heartbeat, isRunning, isStale }) => {
        if (failure || !isRunning() || isStale()) return;
        if (only && !only.has(batch.partition)) return; // fetched before the pause below
        const records: FollowedRecord[] = [];
        for (const m of batch.messages) {
          const verdict = cursors.verdict(batch.partition, m.offset);
          if (verdict !== 'take') continue;
          records.push({
            partition: batch.partition,
            offset: m.offset,
            timestampMs: Number(m.timestamp),
            key: m.key ?? null,
            value: m.value ?? null,
            ...(m.headers && { headers: m.headers }),
          });
        }
        if (records.length > 0) {
          try {
            await options.handleBatch(records);
          } catch (err) {
            logger.warn(
              { partition: batch.partition, reason: errorMessage(err) },
              'follower stopped by its handler',
            );
            fail(err instanceof Error ? err : new Error(String(err)));
            pause([batch.partition]);
            return;
          }
          progress.advance(batch.partition, records[records.length - 1]!.offset);
        }
        if (bounded && cursors.finished(batch.partition)) pause([batch.partition]);
        await heartbeat();
      },
    });
  }

  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await run();
  } catch (err) {
    stopped = true;
    await consumer.disconnect();
    throw err;
  }
  logger.debug({ ranges }, 'follower started');

  return {
    groupId,
    ranges,
    caughtUp: () => progress.caughtUp,
    nextOffsets: () => cursors.nextOffsets(),
    following: () => failure === undefined,
    whenCaughtUp: () =>
      new Promise<void>((resolve, reject) => {
        if (failure) return reject(failure);
        const onFailure = (err: Error) => reject(err);
        failureListeners.add(onFailure);
        progress.onCaughtUp(() => {
          failureListeners.delete(onFailure);
          resolve();
        });
      }),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      crashRestart.cancel();
      fail(new Error(`the follower of ${topic} was stopped`));
      await consumer.disconnect();
    },
  };
}
