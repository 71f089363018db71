import { randomBytes } from 'node:crypto';
import type { Admin, Kafka, KafkaMessage } from 'kafkajs';
import { errorMessage } from '../core/errors';
import type { Logger } from '../observability/logger';

export interface PartitionReadOptions {
  kafka: Kafka;
  admin: Admin;
  topic: string;
  partition: number;
  /**
   * Read up to this offset (exclusive); default: the high watermark at start. Records are read
   * committed: a transactional topic is read up to its last stable offset.
   */
  end?: string;
  /** Start of the private consumer group's id (a random suffix is added; it never commits). */
  groupIdPrefix: string;
  /** The records of one fetch, in offset order (control records and aborted ones left out). */
  onRecords(messages: KafkaMessage[]): Promise<void> | void;
  logger: Logger;
}

/**
 * Reads one partition of a topic from its first record to `end` (the audience processor's state
 * and history: what a partition's new owner rebuilds its memory from). Done is judged on offsets,
 * control records included, so a transactional topic whose last records are commit markers ends.
 * Uses a private consumer group that never commits; other partitions are paused at once.
 */
export async function readPartition(options: PartitionReadOptions): Promise<void> {
  const { kafka, admin, topic, partition, logger } = options;
  const offsets = await admin.fetchTopicOffsets(topic);
  const watermark = offsets.find((o) => o.partition === partition);
  if (!watermark) throw new Error(`${topic} has no partition ${partition}`);
  const end = BigInt(options.end ?? watermark.high);
  if (end <= BigInt(watermark.low)) return;

  const groupId = `${options.groupIdPrefix}-${randomBytes(6).toString('hex')}`;
  const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 100, allowAutoTopicCreation: false });
  let settle: { resolve: () => void; reject: (err: Error) => void } | undefined;
  const done = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  let finished = false;
  const reached = (lastOffset: string | null | undefined) => {
    if (finished || lastOffset === null || lastOffset === undefined) return;
    if (BigInt(lastOffset) + 1n >= end) {
      finished = true;
      settle!.resolve();
    }
  };
  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
    const others = (payload.memberAssignment[topic] ?? []).filter((p) => p !== partition);
    if (others.length > 0) consumer.pause([{ topic, partitions: others }]);
  });
  // Batches of control records only never reach eachBatch; their end does show here.
  consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
    if (payload.partition === partition) reached(payload.lastOffset);
  });
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (!payload.restart) settle!.reject(new Error(`reading ${topic}: ${errorMessage(payload.error)}`));
  });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch, heartbeat }) => {
        if (batch.partition !== partition || finished) return;
        const messages = batch.messages.filter((m) => BigInt(m.offset) < end);
        if (messages.length > 0) await options.onRecords(messages);
        await heartbeat();
      },
    });
    await done;
  } catch (err) {
    logger.warn({ topic, partition, err: errorMessage(err) }, 'partition read failed');
    throw err;
  } finally {
    await consumer.disconnect();
  }
}
