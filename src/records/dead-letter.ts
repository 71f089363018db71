import type { AvroCodec } from '../avro/codec';
import type { Clock } from '../core/clock';
import type { ConsumedMessage } from '../kafka/consumer';
import type { BatchingProducer, OutgoingMessage } from '../kafka/batching-producer';
import { encodeTask, taskKey, type DeliveryTask } from './delivery-task';

export const UNDECODABLE_RECORD = 'io.hookline.delivery.UndecodableRecord';

export interface DeadLetterWriterOptions {
  producer: BatchingProducer;
  avro: AvroCodec;
  topic: string;
  clock: Clock;
}

/** Writes to `hookline.dlq`: given-up delivery tasks, and records that could not be decoded. */
export class DeadLetterWriter {
  constructor(private readonly options: DeadLetterWriterOptions) {}

  /** Resolves once Kafka acknowledged the task with its reason and full history. */
  async task(task: DeliveryTask, reason: string): Promise<void> {
    await this.options.producer.send([this.taskMessage(task, reason)]);
  }

  /** The record `task()` writes, for a caller that sends it along with others. */
  taskMessage(task: DeliveryTask, reason: string): OutgoingMessage {
    const { avro, topic, clock } = this.options;
    const deadLettered: DeliveryTask = { ...task, deadLetterReason: reason, deadLetteredAtMs: clock.now() };
    return { topic, key: taskKey(task), value: encodeTask(avro, deadLettered) };
  }

  async undecodable(source: ConsumedMessage, reason: string): Promise<void> {
    const { producer, avro, topic, clock } = this.options;
    const { message } = source;
    const value = avro.encode(UNDECODABLE_RECORD, {
      topic: source.topic,
      partition: source.partition,
      offset: Number(message.offset),
      key: message.key ?? null,
      value: message.value ?? null,
      reason,
      deadLetteredAt: clock.now(),
    });
    await producer.send([{ topic, key: message.key ? message.key.toString('utf8') : null, value }]);
  }
}
