import type { Producer, TopicMessages } from 'kafkajs';
import { systemClock, type Clock } from '../core/clock';
import { KafkaUnavailableError, errorMessage } from '../core/errors';
import type { Logger } from '../observability/logger';
import { DEFAULT_MAX_RECORD_BYTES, recordBytes, tooLarge, type OutgoingMessage } from './record-size';

/** What `send` takes (its home: record-size.ts). */
export type { OutgoingMessage } from './record-size';

export interface BatchingProducerOptions {
  /** An idempotent kafkajs producer (acks=all); connected by the caller. */
  producer: Producer;
  /**
   * A caller waits at most this long for Kafka's acknowledgement; undefined: until Kafka answers
   * (see `untilAcknowledged`).
   */
  ackTimeoutMs: number | undefined;
  /**
   * Upper bound of the bytes of one produce request made of several callers' messages, counted as
   * `recordBytes` counts them (keys, values, headers and each record's framing). Default 768 KiB:
   * under the broker's `message.max.bytes` (1 MB by default) even if all of them go to one partition.
   */
  maxBatchBytes?: number;
  /**
   * A message larger than this (counted the same way) is refused before it is sent, failing its
   * caller's send alone with RecordTooLargeError. Default: the broker's default `message.max.bytes`
   * less a record batch's header.
   */
  maxRecordBytes?: number;
  /**
   * How long this view's writes may wait, when no request is in flight, for others to share their
   * request (Kafka's linger.ms), unless `lingerBytes` already wait or a write that may not wait
   * comes. Default 0: sent at once. `lingering()` gives a view with another value.
   */
  lingerMs?: number;
  /** Bytes waiting that start a request without lingering. Default 16 KiB (Kafka's batch.size). */
  lingerBytes?: number;
  clock?: Clock;
  logger: Logger;
}

/** Kafka's default batch.size. */
export const DEFAULT_LINGER_BYTES = 16 * 1024;
interface Pending {
  messages: OutgoingMessage[];
  bytes: number;
  resolve: () => void;
  reject: (err: Error) => void;
  abandoned: boolean;
  /** Sent in a request of its own: a shared request with it was refused (see `sendBatch`). */
  alone: boolean;
  /** Sent by then at the latest; 0: at once (a write that may not linger). */
  lingerUntilMs: number;
}

/** What every view of one producer shares. */
interface SharedState {
  queue: Pending[];
  /** A request is in flight. */
  inFlight: boolean;
  /** Bytes of the queue's messages. */
  queuedBytes: number;
  /** Writes in the queue that may not linger. */
  urgentQueued: number;
  /** Armed while the queue lingers. */
  lingerTimer: NodeJS.Timeout | undefined;
}

/**
 * Lets concurrent callers share produce requests. While one request is in flight, new messages
 * accumulate; when it completes they all go in the next request. An idle producer sends at once,
 * except writes through a `lingering()` view: those wait up to its `lingerMs` for company, so that
 * many small records (attempt records, one per delivery) share one request instead of a request
 * each. A write that may not wait takes every lingering one with it. Each caller's promise
 * resolves only when Kafka acknowledged all of its messages (acks=all).
 */
export class BatchingProducer {
  private readonly maxBatchBytes: number;
  private readonly maxRecordBytes: number;
  private readonly lingerMs: number;
  private readonly lingerBytes: number;
  private readonly clock: Clock;

  constructor(
    private readonly options: BatchingProducerOptions,
    private readonly state: SharedState = {
      queue: [],
      inFlight: false,
      queuedBytes: 0,
      urgentQueued: 0,
      lingerTimer: undefined,
    },
  ) {
    this.maxBatchBytes = options.maxBatchBytes ?? 768 * 1024;
    this.maxRecordBytes = options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
    this.lingerMs = options.lingerMs ?? 0;
    this.lingerBytes = options.lingerBytes ?? DEFAULT_LINGER_BYTES;
    this.clock = options.clock ?? systemClock;
  }

  /**
   * The same producer (one queue, one request at a time) for callers that retry what was not
   * acknowledged, such as a consumer's handler: its sends wait for Kafka's answer however long the
   * broker is away. With a timeout, a caller that gave up and sent again wrote its messages twice
   * once the broker was back (the client retries without end, so the first copy lands too): the
   * router then wrote every task twice and each was delivered twice.
   */
  untilAcknowledged(): BatchingProducer {
    return new BatchingProducer({ ...this.options, ackTimeoutMs: undefined }, this.state);
  }

  /**
   * The same producer, whose writes may wait up to `lingerMs` for others (see the class). For
   * writes nobody waits on closely, such as a delivery's hand-off: the receiver has the event
   * already, and only the commit of its offset follows the acknowledgement.
   */
  lingering(lingerMs: number): BatchingProducer {
    return new BatchingProducer({ ...this.options, lingerMs }, this.state);
  }

  send(messages: OutgoingMessage[]): Promise<void> {
    if (messages.length === 0) return Promise.resolve();
    let bytes = 0;
    for (const m of messages) {
      const size = recordBytes(m);
      // Sent, it would fail the whole request, every other caller's records in it too.
      if (size > this.maxRecordBytes) return Promise.reject(tooLarge(m, size, this.maxRecordBytes));
      bytes += size;
    }
    return new Promise<void>((resolve, reject) => {
      const pending: Pending = {
        messages,
        bytes,
        resolve,
        reject,
        abandoned: false,
        alone: false,
        lingerUntilMs: this.lingerMs > 0 ? this.clock.now() + this.lingerMs : 0,
      };
      const { ackTimeoutMs } = this.options;
      const timer =
        ackTimeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              // Not acknowledged in time: the caller answers "unavailable". If the messages were not
              // handed to kafkajs yet they are dropped; if they were, they may still land (the client
              // retries and receivers de-duplicate on messageId).
              pending.abandoned = true;
              reject(new KafkaUnavailableError(`Kafka did not acknowledge within ${ackTimeoutMs} ms`));
            }, ackTimeoutMs);
      pending.resolve = () => {
        clearTimeout(timer);
        resolve();
      };
      pending.reject = (err) => {
        clearTimeout(timer);
        reject(err);
      };
      this.state.queue.push(pending);
      this.state.queuedBytes += bytes;
      if (pending.lingerUntilMs === 0) this.state.urgentQueued++;
      this.pump();
    });
  }

  /** Starts a request if none is in flight and the queue need not linger (`lingered`: it has). */
  private pump(lingered = false): void {
    const { state } = this;
    if (state.inFlight) return;
    if (state.queue.some((p) => p.abandoned)) {
      state.queue = state.queue.filter((p) => !p.abandoned);
      state.queuedBytes = state.queue.reduce((n, p) => n + p.bytes, 0);
      state.urgentQueued = state.queue.filter((p) => p.lingerUntilMs === 0).length;
    }
    if (state.queue.length === 0) return;
    const waitMs = lingered
      ? 0
      : lingerLeftMs({
          urgentQueued: state.urgentQueued,
          queuedBytes: state.queuedBytes,
          lingerBytes: this.lingerBytes,
          // The oldest write waits longest: every lingering view has the configured value.
          oldestLingerUntilMs: state.queue[0]!.lingerUntilMs,
          nowMs: this.clock.now(),
        });
    if (waitMs > 0) {
      state.lingerTimer ??= setTimeout(() => {
        state.lingerTimer = undefined;
        this.pump(true);
      }, waitMs);
      return;
    }
    clearTimeout(state.lingerTimer);
    state.lingerTimer = undefined;
    const batch: Pending[] = [];
    let bytes = 0;
    while (
      state.queue.length > 0 &&
      (batch.length === 0 ||
        (!batch[0]!.alone && !state.queue[0]!.alone && bytes + state.queue[0]!.bytes <= this.maxBatchBytes))
    ) {
      const next = state.queue.shift()!;
      bytes += next.bytes;
      if (next.lingerUntilMs === 0) state.urgentQueued--;
      batch.push(next);
    }
    state.queuedBytes -= bytes;
    state.inFlight = true;
    void this.sendBatch(batch).finally(() => {
      state.inFlight = false;
      this.pump();
    });
  }

  private async sendBatch(batch: Pending[]): Promise<void> {
    const byTopic = new Map<string, TopicMessages>();
    for (const pending of batch) {
      for (const m of pending.messages) {
        let entry = byTopic.get(m.topic);
        if (!entry) byTopic.set(m.topic, (entry = { topic: m.topic, messages: [] }));
        entry.messages.push({ key: m.key, value: m.value, headers: m.headers, partition: m.partition });
      }
    }
    try {
      await this.options.producer.sendBatch({ topicMessages: [...byTopic.values()], acks: -1 });
      for (const p of batch) p.resolve();
    } catch (err) {
      this.options.logger.warn({ err: errorMessage(err), messages: batch.length }, 'produce failed');
      if (batch.length > 1 && isRefusal(err)) {
        // The broker refused the request (a record too large for the topic, say), and sending it
        // again cannot succeed: each caller goes again in a request of its own, in order, so the
        // one whose records are refused fails alone instead of every caller in it, on every try.
        for (const p of batch) p.alone = true;
        this.state.queue.unshift(...batch);
        this.state.queuedBytes += batch.reduce((n, p) => n + p.bytes, 0);
        this.state.urgentQueued += batch.filter((p) => p.lingerUntilMs === 0).length;
        return;
      }
      const error = new KafkaUnavailableError(`Kafka write failed: ${errorMessage(err)}`, { cause: err });
      for (const p of batch) p.reject(error);
    }
  }
}

/** A kafkajs error that says retrying the same request cannot succeed (e.g. MESSAGE_TOO_LARGE). */
function isRefusal(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { retriable?: unknown }).retriable === false;
}

/**
 * How much longer the queue should wait for more writes before a request starts (0: start now),
 * Kafka's linger.ms and batch.size for a producer with one request in flight: a write that may
 * not wait, or `lingerBytes` waiting, start it at once; otherwise the oldest write's time is up.
 */
export function lingerLeftMs(options: {
  urgentQueued: number;
  queuedBytes: number;
  lingerBytes: number;
  oldestLingerUntilMs: number;
  nowMs: number;
}): number {
  if (options.urgentQueued > 0 || options.queuedBytes >= options.lingerBytes) return 0;
  return Math.max(0, options.oldestLingerUntilMs - options.nowMs);
}
