import { DEFAULT_RETRY_SCHEDULE_MS } from '../../src/config/retry';
import { Kafka, type LogEntry, logLevel } from '../../src/kafka/kafkajs';
import type { Logger } from '../../src/observability/logger';
import { ensureTopics } from '../../src/kafka/topics';

/** Prefix and sizing of Hookline's topics on a development cluster. */
export const DEV_TOPIC_PREFIX = 'hookline';
export const DEV_DEFAULT_PARTITIONS = 3;

/**
 * A kafkajs client for the stack's own checks. kafkajs logs to the console by default; here every
 * line goes to the injected logger at debug level (connection errors while a broker boots are expected).
 */
export function createDevKafka(options: {
  brokers: string[];
  logger: Logger;
  connectionTimeoutMs?: number;
}): Kafka {
  process.env.KAFKAJS_NO_PARTITIONER_WARNING ??= '1';
  return new Kafka({
    clientId: 'hookline-devstack',
    brokers: options.brokers,
    connectionTimeout: options.connectionTimeoutMs ?? 1_000,
    retry: { retries: 0 },
    logLevel: logLevel.WARN,
    logCreator:
      () =>
      ({ namespace, log }: LogEntry) => {
        const { message, ...extra } = log;
        options.logger.debug({ kafkajs: namespace, ...extra }, message);
      },
  });
}

/** True once the broker answers metadata and lists itself (registered and unfenced). */
export async function isKafkaReady(options: { brokers: string[]; logger: Logger }): Promise<boolean> {
  const admin = createDevKafka(options).admin();
  try {
    await admin.connect();
    const cluster = await admin.describeCluster();
    return cluster.brokers.length > 0;
  } catch {
    return false;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/** Creates Hookline's topics (prefix `hookline`, 3 partitions by default, replication factor 1). */
export async function createDevTopics(options: { brokers: string[]; logger: Logger }): Promise<string[]> {
  const kafka = createDevKafka({ ...options, connectionTimeoutMs: 5_000 });
  const admin = kafka.admin({ retry: { retries: 5 } });
  await admin.connect();
  try {
    return await ensureTopics({
      admin,
      prefix: DEV_TOPIC_PREFIX,
      defaultPartitions: DEV_DEFAULT_PARTITIONS,
      replicationFactor: 1,
      retryScheduleMs: DEFAULT_RETRY_SCHEDULE_MS,
      logger: options.logger,
    });
  } finally {
    await admin.disconnect();
  }
}
