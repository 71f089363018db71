import { randomBytes } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { connectAvro } from '../../src/avro/connect';
import { silentLogger } from '../../src/observability/logger';
import { decodeDlqRecord } from '../../src/records/dlq';
import type { DeadLetterObservation } from './ledger';

/**
 * Reads `<prefix>.dlq` from the beginning and keeps following it (a throwaway consumer group that
 * never commits), decoding each dead-lettered task into its messageId, destination and reason.
 */
export async function followDeadLetters(options: {
  kafkaBrokers: string[];
  schemaRegistryUrl: string;
  topic: string;
}): Promise<{ entries(): DeadLetterObservation[]; undecodable(): number; stop(): Promise<void> }> {
  const avro = await connectAvro({ url: options.schemaRegistryUrl, logger: silentLogger() });
  const kafka = new Kafka({
    clientId: 'hookline-chaos',
    brokers: options.kafkaBrokers,
    logLevel: logLevel.NOTHING,
  });
  const consumer = kafka.consumer({
    groupId: `chaos-dlq-${randomBytes(4).toString('hex')}`,
    maxWaitTimeInMs: 200,
  });
  const entries: DeadLetterObservation[] = [];
  let undecodable = 0;
  await consumer.connect();
  await consumer.subscribe({ topic: options.topic, fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    eachMessage: async ({ message }) => {
      if (!message.value) return;
      const record = await decodeDlqRecord(avro, message.value).catch(() => undefined);
      if (record?.kind === 'task') {
        const { messageId, destinationId, deadLetterReason } = record.task;
        entries.push({ messageId, destinationId, reason: deadLetterReason ?? '' });
      } else if (record?.kind !== 'redriven') undecodable++;
    },
  });
  return { entries: () => entries, undecodable: () => undecodable, stop: () => consumer.disconnect() };
}
