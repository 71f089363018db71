import type { Admin, Kafka } from 'kafkajs';
import { Histogram, type Registry } from 'prom-client';
import type { AvroCodec } from '../../avro/codec';
import type { Clock } from '../../core/clock';
import { ConcurrentConsumer } from '../../kafka/consumer';
import type { DoneBefore } from '../../kafka/consumer-options';
import { retryTopic } from '../../kafka/topics';
import type { Logger } from '../../observability/logger';
import type { DeadLetterWriter } from '../../records/dead-letter';
import type { DeliveryTask } from '../../records/delivery-task';
import type { Dispatcher } from '../dispatcher';
import { submitOptions, taskHandler } from '../task-handler';
import { dueAtOf } from './due-header';

export interface DelayConsumerOptions {
  kafka: Kafka;
  admin: Admin;
  avro: AvroCodec;
  dispatcher: Dispatcher;
  /** Parks a task again that came back before its due time (see DeliveryExecutor.repark). */
  repark: (task: DeliveryTask) => Promise<void>;
  /** Hands a rate-limited destination's task back to the deliveries topic (DeliveryExecutor.forward). */
  forward: (task: DeliveryTask) => Promise<boolean>;
  deadLetters: DeadLetterWriter;
  topicPrefix: string;
  /** The configured schedule: one delay topic per step. */
  scheduleMs: readonly number[];
  maxInFlight: number;
  drainTimeoutMs: number;
  sessionTimeoutMs: number;
  /** HOOKLINE_KAFKA_FETCH_PARTITION_BYTES. */
  fetchPartitionBytes: number;
  /** What a crashed owner of a partition delivered without committing it (DeliveredLookup). */
  doneBefore?: DoneBefore;
  metrics: Registry;
  clock: Clock;
  logger: Logger;
}

/**
 * Reads the delay topics (`<prefix>.retry.<delay>`, every tier of the configured schedule plus
 * any older tier still on the cluster) under the group `<prefix>.retry`. A record not yet due
 * pauses its partition until it is (the group keeps heartbeating; other partitions go on); a due
 * record goes through the same dispatcher and executor as a first attempt. Its offset is
 * committed only once it was re-attempted and handed on, so a restart mid-wait loses nothing,
 * and the due check runs again, so nothing is ever sent early.
 */
export async function startDelayConsumer(options: DelayConsumerOptions): Promise<{ stop(): Promise<void> }> {
  const { admin, avro, clock, logger, dispatcher, deadLetters, topicPrefix } = options;
  const prefix = `${topicPrefix}.retry.`;
  const configured = options.scheduleMs.map((ms) => retryTopic(topicPrefix, ms));
  const existing = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
  const topics = [...new Set([...configured, ...existing])].sort();

  const lateness = lateMetric(options.metrics);
  const consumer = new ConcurrentConsumer({
    kafka: options.kafka,
    admin,
    groupId: `${topicPrefix}.retry`,
    topics,
    maxInFlight: options.maxInFlight,
    drainTimeoutMs: options.drainTimeoutMs,
    notBefore: dueAtOf,
    clock,
    sessionTimeoutMs: options.sessionTimeoutMs,
    fetchPartitionBytes: options.fetchPartitionBytes,
    ...(options.doneBefore && { doneBefore: options.doneBefore }),
    logger,
    metrics: options.metrics,
    handler: taskHandler({
      avro,
      deadLetters,
      logger,
      handle: async (task, consumed) => {
        const dueAtMs = task.dueAtMs ?? dueAtOf(consumed.message) ?? clock.now();
        if (dueAtMs > clock.now()) return options.repark(task); // a Retry-After beyond this step
        if (await options.forward(task)) return; // paced by the owner of its deliveries partition
        const tier = consumed.topic.slice(prefix.length);
        // Observed when the attempt starts, so time spent waiting in a busy lane counts too.
        await dispatcher.submit(task, {
          onStart: () => lateness.observe({ tier }, Math.max(0, clock.now() - dueAtMs) / 1_000),
          ...submitOptions(consumed),
        });
      },
    }),
  });
  await consumer.start();
  logger.info({ topics }, 'delay consumer started');
  return { stop: () => consumer.stop() };
}

function lateMetric(registry: Registry): Histogram<'tier'> {
  const name = 'hookline_retry_lateness_seconds';
  const existing = registry.getSingleMetric(name);
  if (existing) return existing as Histogram<'tier'>;
  return new Histogram({
    name,
    help: 'How late a retry starts after its due time, by delay tier.',
    labelNames: ['tier'],
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
}
