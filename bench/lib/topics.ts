import type { Admin, Kafka } from 'kafkajs';
import { createKafka } from '../../src/kafka/client';
import { createLogger } from '../../src/observability/logger';
import type { BenchContext } from './scenario';
import { pollUntil } from './wait';

/**
 * Creates one topic for a raw baseline and waits until its partitions answer ListOffsets (on
 * Kafka 3.9 KRaft they answer NOT_LEADER_OR_FOLLOWER for a moment after CreateTopics returns).
 */
export async function createReadyTopic(kafka: Kafka, topic: string, partitions: number): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    // Another process may have made it (the relay's processes): kafkajs logs an error for that.
    if (!(await admin.listTopics()).includes(topic))
      await admin.createTopics({ topics: [{ topic, numPartitions: partitions }], waitForLeaders: true });
    await waitUntilReadable(admin, [topic]);
  } finally {
    await admin.disconnect();
  }
}

/** Deletes the topics of a bench prefix (best effort: a leftover topic only costs disk). */
export async function deleteTopics(ctx: BenchContext, prefix: string): Promise<void> {
  try {
    await withAdmin(ctx, async (admin) => {
      const topics = (await admin.listTopics()).filter((t) => t.startsWith(`${prefix}.`));
      if (topics.length > 0) await admin.deleteTopics({ topics, timeout: 10_000 });
    });
  } catch (err) {
    ctx.log(`warning: could not delete the topics of ${prefix}: ${(err as Error).message}`);
  }
}

/** Deletes `topics` (a micro-bench's own, by name; the cluster is shared). Best effort: says why it could not. */
export async function dropTopics(kafka: Kafka, topics: string[]): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.deleteTopics({ topics, timeout: 30_000 });
  } catch (err) {
    console.error(`could not delete ${topics.length} topics: ${(err as Error).message}`);
  } finally {
    await admin.disconnect();
  }
}

async function waitUntilReadable(admin: Admin, topics: string[]): Promise<void> {
  for (const topic of topics) {
    const ok = await pollUntil(
      () =>
        admin.fetchTopicOffsets(topic).then(
          () => true,
          () => undefined,
        ),
      {
        timeoutMs: 15_000,
        intervalMs: 100,
      },
    );
    if (!ok) throw new Error(`topic ${topic} still has no leader answering ListOffsets after 15 s`);
  }
}

async function withAdmin<T>(ctx: BenchContext, fn: (admin: Admin) => Promise<T>): Promise<T> {
  const kafka = createKafka({
    brokers: ctx.cluster.kafkaBrokers,
    clientId: 'hookline-bench-admin',
    patches: 'hookline-process',
    logger: createLogger({ level: 'silent' }),
  });
  const admin = kafka.admin();
  await admin.connect();
  try {
    return await fn(admin);
  } finally {
    await admin.disconnect();
  }
}
