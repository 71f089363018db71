import type { Admin, ConsumerConfig, Kafka, KafkaMessage } from 'kafkajs';
import { PartitionAssigners } from './kafkajs';
import { stoppableRetry } from './crash-restart';
import { groupTimings } from './group-timings';
import { stickyAssigner } from './sticky-assigner';
import type { Registry } from 'prom-client';
import type { Clock } from '../core/clock';
import type { Logger } from '../observability/logger';

/** The options and handler types of the consumer runner (consumer.ts). */

export interface ConsumedMessage {
  topic: string;
  partition: number;
  message: KafkaMessage;
  /**
   * False once the consumer no longer holds the message's partition: it left the group (a crash,
   * kafkajs restarting it) or the partition moved on. Work not started by then should not start:
   * the handler rejects with WorkNotHeldError and the message is handed out again, here or to the
   * partition's next owner. Started work finishes either way. Absent: always held.
   */
  held?: () => boolean;
  /**
   * `keyOrdered`: lets the next message of the same key start before this one is done. A handler
   * that hands its work to something keeping the key's order itself (the delivery lanes) calls it
   * once the work is handed; otherwise the next message starts when this one is done.
   */
  nextMayStart?: () => void;
}

/**
 * Handles one message. Resolves when the message is done (processed, or durably handed on).
 * It should not reject for problems of the message itself (dead-letter those); a rejection means
 * "infrastructure trouble": the runner retries it with backoff and never commits past it.
 */
export type MessageHandler = (message: ConsumedMessage) => Promise<void>;

/**
 * Where a consumer's messages become work that may wait in memory (the delivery lanes:
 * Dispatcher): how many of them it may hold now, at most `maxInFlight`.
 */
export interface HoldBack {
  limit(maxInFlight: number): number;
}

/** The offsets of a partition its previous owner finished without committing them. */
export type DoneBefore = (topic: string, partition: number) => Promise<number[]>;

export interface ConcurrentConsumerOptions {
  kafka: Kafka;
  groupId: string;
  topics: string[];
  handler: MessageHandler;
  /** Messages being handled at once, across partitions. Fetching pauses at this bound. */
  maxInFlight: number;
  /** A lower bound for now (fetching pauses at it too), and a look again every 100 ms. */
  holdBack?: HoldBack;
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
  /**
   * Reads a taken-over partition's committed holes; when given, `hookline_consumer_lag` is also
   * measured from the broker on a timer (see lag.ts). Without it the consumer uses one of its own.
   */
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
   * How long a member that got a partition waits for the old owner to release it, and how long a
   * member that gave one up goes on committing its work there (handover.ts). Default 2 s.
   */
  handoverGraceMs?: number;
  /**
   * The offsets of a partition its previous owner finished without committing them, asked when
   * the partition is taken over unreleased (handover.ts): they are not handled again.
   */
  doneBefore?: DoneBefore;
  /**
   * Most bytes fetched per partition in one request (kafkajs maxBytesPerPartition; a fetch holds at
   * most FETCH_PARTITIONS_PER_REQUEST × this). Unset: kafkajs' defaults (1 MB, 10 MB).
   */
  fetchPartitionBytes?: number;
}

/** A fetch carries at most this many partitions' worth of `fetchPartitionBytes`. */
export const FETCH_PARTITIONS_PER_REQUEST = 8;

/** kafkajs's fetch bounds for a per-partition byte bound; none (its defaults) when unset. */
export function fetchSizes(partitionBytes: number | undefined): {
  maxBytesPerPartition?: number;
  maxBytes?: number;
} {
  if (partitionBytes === undefined) return {};
  return { maxBytesPerPartition: partitionBytes, maxBytes: partitionBytes * FETCH_PARTITIONS_PER_REQUEST };
}

/** What the kafkajs consumer's settings ask of the ConcurrentConsumer that owns it. */
export interface ConsumerHooks {
  /** This member's partitions, busiest first (the sticky assigner keeps those). */
  busiestFirst: () => readonly { topic: string; partition: number }[];
  /** Partitions given up whose work is still being committed (`<topic>:<partition>`). */
  retiringKeys: () => readonly string[];
  stopping: () => boolean;
}

/** The settings of a ConcurrentConsumer's kafkajs consumer. */
export function kafkajsConsumerConfig(
  options: ConcurrentConsumerOptions,
  hooks: ConsumerHooks,
): ConsumerConfig {
  return {
    groupId: options.groupId,
    ...groupTimings(options.sessionTimeoutMs ?? 30_000),
    maxWaitTimeInMs: options.maxWaitTimeInMs ?? 100,
    ...fetchSizes(options.fetchPartitionBytes),
    allowAutoTopicCreation: false,
    // Sticky: a rebalance moves only the partitions that must move (round robin: a group of older members).
    partitionAssigners: [
      stickyAssigner(hooks.busiestFirst, hooks.retiringKeys),
      PartitionAssigners.roundRobin,
    ],
    // Once stopping, no restart after a crash (kafkajs's would be a member holding partitions idle).
    retry: stoppableRetry(hooks.stopping),
  };
}
