import type { Producer, TopicMessages } from 'kafkajs';
import { KafkaUnavailableError, errorMessage } from '../core/errors';
import type { Logger } from '../observability/logger';

export interface OutgoingMessage {
  topic: string;
  key: string | null;
  value: Buffer | null;
  headers?: Record<string, string>;
  /** Written to this partition; default: by key (murmur2, as the Java client). */
  partition?: number;
}

export interface BatchingProducerOptions {
  /** An idempotent kafkajs producer (acks=all); connected by the caller. */
  producer: Producer;
  /**
   * A caller waits at most this long for Kafka's acknowledgement; undefined: until Kafka answers
   * (see `untilAcknowledged`).
   */
  ackTimeoutMs: number | undefined;
  /** Upper bound of bytes (values) in one produce request made of several callers' messages. */
  maxBatchBytes?: number;
  logger: Logger;
}

interface Pending {
  messages: OutgoingMessage[];
  bytes: number;
  resolve: () => void;
  reject: (err: Error) => void;
  abandoned: boolean;
}

/**
 * Lets concurrent callers share produce requests. While one request is in flight, new messages
 * accumulate; when it completes they all go in the next request. No timer and no linger: an idle
 * producer sends at once, a busy one batches as much as arrived meanwhile. Each caller's promise
 * resolves only when Kafka acknowledged all of its messages (acks=all).
 */
export class BatchingProducer {
  private readonly maxBatchBytes: number;

  constructor(
    private readonly options: BatchingProducerOptions,
    /** What every view of this producer shares: its queue, and whether a request is in flight. */
    private readonly state: { queue: Pending[]; inFlight: boolean } = { queue: [], inFlight: false },
  ) {
    this.maxBatchBytes = options.maxBatchBytes ?? 768 * 1024;
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

  send(messages: OutgoingMessage[]): Promise<void> {
    if (messages.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const bytes = messages.reduce((n, m) => n + (m.value?.length ?? 0) + (m.key?.length ?? 0), 0);
      const pending: Pending = { messages, bytes, resolve, reject, abandoned: false };
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
      this.pump();
    });
  }

  private pump(): void {
    const { state } = this;
    if (state.inFlight) return;
    state.queue = state.queue.filter((p) => !p.abandoned);
    if (state.queue.length === 0) return;
    const batch: Pending[] = [];
    let bytes = 0;
    while (
      state.queue.length > 0 &&
      (batch.length === 0 || bytes + state.queue[0]!.bytes <= this.maxBatchBytes)
    ) {
      const next = state.queue.shift()!;
      bytes += next.bytes;
      batch.push(next);
    }
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
      const error = new KafkaUnavailableError(`Kafka write failed: ${errorMessage(err)}`, { cause: err });
      for (const p of batch) p.reject(error);
    }
  }
}
