import { PartitionAssigners } from 'kafkajs';
import type { Admin, Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import type { Registry } from 'prom-client';
import { systemClock, type Clock } from '../core/clock';
import { backoffDelayMs, sleep } from '../core/backoff';
import { errorMessage } from '../core/errors';
import type { Logger } from '../observability/logger';
import { startLagMonitor } from './lag';
import { PartitionOffsets, pendingCommits } from './offset-tracker';
import { groupTimings } from './group-timings';
import { stickyAssigner } from './sticky-assigner';

export interface ConsumedMessage {
  topic: string;
  partition: number;
  message: KafkaMessage;
}

/**
 * Handles one message. Resolves when the message is done (processed, or durably handed on).
 * It should not reject for problems of the message itself (dead-letter those); a rejection means
 * "infrastructure trouble": the runner retries it with backoff and never commits past it.
 */
export type MessageHandler = (message: ConsumedMessage) => Promise<void>;

export interface ConcurrentConsumerOptions {
  kafka: Kafka;
  groupId: string;
  topics: string[];
  handler: MessageHandler;
  /** Messages being handled at once, across partitions. Fetching pauses at this bound. */
  maxInFlight: number;
  /** Completed work is committed within this (50 ms; moves meanwhile share one request). */
  commitDelayMs?: number;
  /** How often commits are also tried (a failed one is retried then; plus once on stop). */
  commitIntervalMs?: number;
  /** How long stop() waits for in-flight messages before giving up on them (they are redelivered). */
  drainTimeoutMs?: number;
  /**
   * Where a partition without a committed offset starts. Default true: every record on
   * Hookline's own topics is work to do, including those written before this group ever
   * committed on that partition (starting at the end would silently skip them).
   */
  fromBeginning?: boolean;
  logger: Logger;
  metrics: Registry;
  /** When given, `hookline_consumer_lag` is measured from the broker on a timer (see lag.ts). */
  admin?: Admin;
  /**
   * When set, a message is not handled before the time this returns (epoch ms): its partition is
   * paused until then and resumed after, without blocking the group or other partitions. Records
   * of one partition must be due in order (true of a delay topic: same delay, appended in time order).
   */
  notBefore?: (message: KafkaMessage) => number | undefined;
  /**
   * Handle messages with the same key (in one partition) one after another, in offset order;
   * messages with different keys still run concurrently.
   */
  keyOrdered?: boolean;
  clock?: Clock;
  /**
   * A member that stops heartbeating (crashed, SIGKILL) loses its partitions after this long.
   * Default 30 s. The heartbeat interval follows it (group-timings.ts).
   */
  sessionTimeoutMs?: number;
  maxWaitTimeInMs?: number;
  /**
   * Most bytes fetched per partition in one request (kafkajs maxBytesPerPartition; a fetch holds at
   * most FETCH_PARTITIONS_PER_REQUEST × this). Unset: kafkajs' defaults (1 MB, 10 MB).
   */
  fetchPartitionBytes?: number;
}

/** A fetch carries at most this many partitions' worth of `fetchPartitionBytes`. */
export const FETCH_PARTITIONS_PER_REQUEST = 8;

/**
 * A consumer that works on many messages at once (no head-of-line blocking: a slow message does
 * not hold back the ones after it) and commits in order: per partition, only up to the highest
 * offset below which every message is done. A crash therefore re-delivers, never skips.
 */
export class ConcurrentConsumer {
  private readonly consumer: Consumer;
  private readonly partitions = new Map<string, PartitionOffsets>();
  private inFlight = 0;
  private readonly capacityWaiters: (() => void)[] = [];
  private readonly drainWaiters: (() => void)[] = [];
  private commitTimer: NodeJS.Timeout | undefined;
  private promptCommit: NodeJS.Timeout | undefined;
  private committing: Promise<void> = Promise.resolve();
  private stopping = false;
  private readonly resumeTimers = new Set<NodeJS.Timeout>();
  /** Per partition and key: the last message handled or waiting (keyOrdered). */
  private readonly keyChains = new Map<string, Promise<void>>();
  private readonly clock: Clock;
  /** The partitions the group gave this member at its last join. */
  private assigned: { topic: string; partition: number }[] = [];
  private lagMonitor: { stop(): void } | undefined;

  constructor(private readonly options: ConcurrentConsumerOptions) {
    this.consumer = options.kafka.consumer({
      groupId: options.groupId,
      ...groupTimings(options.sessionTimeoutMs ?? 30_000),
      maxWaitTimeInMs: options.maxWaitTimeInMs ?? 100,
      ...(options.fetchPartitionBytes !== undefined && {
        maxBytesPerPartition: options.fetchPartitionBytes,
        maxBytes: options.fetchPartitionBytes * FETCH_PARTITIONS_PER_REQUEST,
      }),
      allowAutoTopicCreation: false,
      // Sticky: a rebalance moves only the partitions that must move (round robin: a group of older members).
      partitionAssigners: [stickyAssigner(() => this.busiestFirst()), PartitionAssigners.roundRobin],
    });
    this.clock = options.clock ?? systemClock;
    // A rebalance may hand our partitions to another member: commit what is done first, so it
    // does not deliver again the work finished here since the last periodic commit.
    this.consumer.on(this.consumer.events.REBALANCING, () => void this.commit());
    this.consumer.on(this.consumer.events.GROUP_JOIN, (event) => {
      // Keep the trackers of partitions we still own: kafkajs re-fetches them from the committed
      // offset, and the tracker tells which of those messages are already in flight or done.
      this.assigned = Object.entries(event.payload.memberAssignment).flatMap(([topic, parts]) =>
        parts.map((partition) => ({ topic, partition })),
      );
      const assigned = new Set(this.assigned.map((p) => `${p.topic}:${p.partition}`));
      for (const key of [...this.partitions.keys()]) if (!assigned.has(key)) this.partitions.delete(key);
    });
  }

  async start(): Promise<void> {
    const { topics, fromBeginning = true } = this.options;
    await this.consumer.connect();
    await this.consumer.subscribe({ topics, fromBeginning });
    await this.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: 8,
      eachBatch: (payload) => this.onBatch(payload),
    });
    this.commitTimer = setInterval(() => void this.commit(), this.options.commitIntervalMs ?? 500);
    if (this.options.admin) {
      this.lagMonitor = startLagMonitor({
        admin: this.options.admin,
        groupId: this.options.groupId,
        assigned: () => this.assigned,
        metrics: this.options.metrics,
        logger: this.options.logger,
      });
    }
  }

  private async onBatch({
    batch,
    resolveOffset,
    heartbeat,
    isRunning,
    isStale,
    pause,
  }: EachBatchPayload): Promise<void> {
    const key = `${batch.topic}:${batch.partition}`;
    let tracker = this.partitions.get(key);
    if (!tracker) this.partitions.set(key, (tracker = new PartitionOffsets()));

    for (const message of batch.messages) {
      if (!isRunning() || isStale() || this.stopping) return;
      const offset = Number(message.offset);
      if (tracker.has(offset)) {
        resolveOffset(message.offset); // re-fetched after a rebalance: already in flight or done
        continue;
      }
      const dueAtMs = this.options.notBefore?.(message);
      if (dueAtMs !== undefined && dueAtMs > this.clock.now()) {
        // Not due: leave this offset unresolved (kafkajs fetches from it again after resume).
        this.pauseUntil(dueAtMs, pause);
        return;
      }
      while (this.inFlight >= this.options.maxInFlight) {
        await Promise.race([new Promise<void>((r) => this.capacityWaiters.push(r)), sleep(1_000)]);
        await heartbeat();
        if (!isRunning() || isStale() || this.stopping) return;
      }
      if (this.partitions.get(key) !== tracker) return; // partition revoked meanwhile
      tracker.track(offset);
      resolveOffset(message.offset);
      this.inFlight++;
      const consumed = { topic: batch.topic, partition: batch.partition, message };
      if (this.options.keyOrdered && message.key)
        this.runAfterSameKey(`${key}:${message.key.toString('latin1')}`, consumed, tracker, offset);
      else void this.run(consumed, tracker, offset);
    }
    await heartbeat();
  }

  private runAfterSameKey(
    chainKey: string,
    consumed: ConsumedMessage,
    tracker: PartitionOffsets,
    offset: number,
  ): void {
    const previous = this.keyChains.get(chainKey) ?? Promise.resolve();
    const current = previous.then(() => this.run(consumed, tracker, offset)); // run() never rejects
    this.keyChains.set(chainKey, current);
    void current.then(() => {
      if (this.keyChains.get(chainKey) === current) this.keyChains.delete(chainKey);
    });
  }

  private pauseUntil(dueAtMs: number, pause: () => () => void): void {
    const resume = pause();
    const timer = setTimeout(() => {
      this.resumeTimers.delete(timer);
      if (!this.stopping) resume();
    }, dueAtMs - this.clock.now());
    this.resumeTimers.add(timer);
  }

  private async run(message: ConsumedMessage, tracker: PartitionOffsets, offset: number): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.options.handler(message);
        break;
      } catch (err) {
        if (this.stopping) {
          // Leave it uncommitted: it is delivered again after restart.
          this.release();
          return;
        }
        const waitMs = backoffDelayMs(attempt + 1);
        this.options.logger.error(
          {
            err: errorMessage(err),
            topic: message.topic,
            partition: message.partition,
            offset,
            retryInMs: waitMs,
          },
          'message handler failed; retrying',
        );
        await sleep(waitMs);
      }
    }
    if (tracker.complete(offset)) this.commitSoon();
    this.release();
  }

  private commitSoon(): void {
    if (this.promptCommit || this.stopping) return;
    this.promptCommit = setTimeout(() => {
      this.promptCommit = undefined;
      void this.commit();
    }, this.options.commitDelayMs ?? 50);
  }

  private release(): void {
    this.inFlight--;
    this.capacityWaiters.shift()?.();
    if (this.inFlight === 0) for (const w of this.drainWaiters.splice(0)) w();
  }

  /** Commits every partition's completed prefix. Serialised: one commit request at a time. */
  commit(): Promise<void> {
    this.committing = this.committing.then(async () => {
      const offsets = pendingCommits(this.partitions);
      if (offsets.length === 0) return;
      try {
        await this.consumer.commitOffsets(offsets);
        for (const o of offsets) {
          this.partitions.get(`${o.topic}:${o.partition}`)?.markCommitted(Number(o.offset));
        }
      } catch (err) {
        // A rebalance in progress, typically; the next commit carries the same offsets.
        this.options.logger.warn(
          { err: errorMessage(err), groupId: this.options.groupId },
          'offset commit failed',
        );
      }
    });
    return this.committing;
  }

  /** Stops fetching, lets in-flight messages finish (up to drainTimeoutMs), commits, leaves the group. */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    for (const w of this.capacityWaiters.splice(0)) w();
    for (const timer of this.resumeTimers) clearTimeout(timer);
    this.resumeTimers.clear();
    this.consumer.pause(this.options.topics.map((topic) => ({ topic })));
    if (this.inFlight > 0) {
      await Promise.race([
        new Promise<void>((r) => this.drainWaiters.push(r)),
        sleep(this.options.drainTimeoutMs ?? 15_000),
      ]);
    }
    clearInterval(this.commitTimer);
    clearTimeout(this.promptCommit);
    this.lagMonitor?.stop();
    await this.commit();
    await this.consumer.disconnect();
  }

  /** The partitions held, those with the most work in flight first: the ones kept if some must go. */
  private busiestFirst(): { topic: string; partition: number }[] {
    const load = (p: { topic: string; partition: number }) =>
      this.partitions.get(`${p.topic}:${p.partition}`)?.inFlight ?? 0;
    return [...this.assigned].sort((a, b) => load(b) - load(a));
  }

  /** Messages being handled now. */
  get inFlightCount(): number {
    return this.inFlight;
  }
}
