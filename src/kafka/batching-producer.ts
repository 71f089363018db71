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
  /** A caller waits at most this long for Kafka's acknowledgement. */
  ackTimeoutMs: number;
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
  private queue: Pending[] = [];
  private inFlight = false;
  private readonly maxBatchBytes: number;

  constructor(private readonly options: BatchingProducerOptions) {
    this.maxBatchBytes = options.maxBatchBytes ?? 768 * 1024;
  }

  send(messages: OutgoingMessage[]): Promise<void> {
    if (messages.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const bytes = messages.reduce((n, m) => n + (m.value?.length ?? 0) + (m.key?.length ?? 0), 0);
      const pending: Pending = { messages, bytes, resolve, reject, abandoned: false };
      const timer = setTimeout(() => {
        // Not acknowledged in time: the caller answers "unavailable". If the messages were not
        // handed to kafkajs yet they are dropped; if they were, they may still land (the client
        // retries and receivers de-duplicate on messageId).
        pending.abandoned = true;
        reject(new KafkaUnavailableError(`Kafka did not acknowledge within ${this.options.ackTimeoutMs} ms`));
      }, this.options.ackTimeoutMs);
      pending.resolve = () => {
        clearTimeout(timer);
        resolve();
      };
      pending.reject = (err) => {
        clearTimeout(timer);
        reject(err);
      };
      this.queue.push(pending);
      this.pump();
    });
  }

  private pump(): void {
    if (this.inFlight) return;
    this.queue = this.queue.filter((p) => !p.abandoned);
    if (this.queue.length === 0) return;
    const batch: Pending[] = [];
    let bytes = 0;
    while (
      this.queue.length > 0 &&
      (batch.length === 0 || bytes + this.queue[0]!.bytes <= this.maxBatchBytes)
    ) {
      const next = this.queue.shift()!;
      bytes += next.bytes;
      batch.push(next);
    }
    this.inFlight = true;
    void this.sendBatch(batch).finally(() => {
      this.inFlight = false;
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
