import { randomBytes } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { connectAvro } from '../../src/avro/connect';
import { silentLogger } from '../../src/observability/logger';
import { decodeTask } from '../../src/records/delivery-task';
import { eventually } from '../../test/support/eventually';

/** Tasks the router wrote more than once to the deliveries topic, per destination id. */
export interface TaskCopies {
  /** Tasks (distinct task ids) on the topic. */
  tasks: number;
  /** Copies beyond the first, per destination id. */
  extraByDestination: Map<string, number>;
}

/**
 * Reads the deliveries topic up to its end (a throwaway group that never commits) and counts the
 * tasks on it more than once: an event the router routed again (its partition read again from an
 * older commit after the broker kill, say). Each extra copy is delivered again by a worker, so the
 * duplicates of a destination split into these and the worker's own redeliveries.
 */
export async function countTaskCopies(options: {
  kafkaBrokers: string[];
  schemaRegistryUrl: string;
  topic: string;
}): Promise<TaskCopies> {
  const avro = await connectAvro({ url: options.schemaRegistryUrl, logger: silentLogger() });
  const kafka = new Kafka({
    clientId: 'hookline-chaos',
    brokers: options.kafkaBrokers,
    logLevel: logLevel.NOTHING,
  });
  const admin = kafka.admin();
  await admin.connect();
  const ends = new Map(
    (await admin.fetchTopicOffsets(options.topic)).map((p) => [p.partition, Number(p.high)]),
  );
  await admin.disconnect();
  const consumer = kafka.consumer({
    groupId: `chaos-tasks-${randomBytes(4).toString('hex')}`,
    maxWaitTimeInMs: 200,
  });
  const seen = new Map<string, { destinationId: string; copies: number }>();
  const reached = new Map<number, number>();
  await consumer.connect();
  try {
    await consumer.subscribe({ topic: options.topic, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        reached.set(partition, Number(message.offset) + 1);
        if (!message.value) return;
        const task = await decodeTask(avro, message.value).catch(() => undefined);
        if (!task) return;
        const entry = seen.get(task.taskId);
        if (entry) entry.copies++;
        else seen.set(task.taskId, { destinationId: task.destinationId, copies: 1 });
      },
    });
    await eventually(() => [...ends].every(([p, end]) => end === 0 || (reached.get(p) ?? 0) >= end), {
      timeoutMs: 60_000,
      intervalMs: 200,
      what: `the end of ${options.topic}`,
    });
  } finally {
    await consumer.disconnect();
  }
  const extraByDestination = new Map<string, number>();
  for (const { destinationId, copies } of seen.values())
    if (copies > 1)
      extraByDestination.set(destinationId, (extraByDestination.get(destinationId) ?? 0) + copies - 1);
  return { tasks: seen.size, extraByDestination };
}
