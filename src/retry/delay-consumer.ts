import { Histogram } from 'prom-client';
import type { AppContext } from '../app';
import type { DeadLetterWriter } from '../delivery/dead-letter';
import type { Dispatcher } from '../delivery/dispatcher';
import { taskHandler } from '../delivery/task-handler';
import { ConcurrentConsumer } from '../kafka/concurrent-consumer';
import { dueAtOf } from './due-header';
import { retryTopic } from './schedule';

export interface DelayConsumerOptions {
  context: AppContext;
  dispatcher: Dispatcher;
  deadLetters: DeadLetterWriter;
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
  const { context, dispatcher, deadLetters } = options;
  const { config, admin, avro, clock } = context;
  const logger = context.logger.child({ component: 'retry' });
  const prefix = `${config.topics.prefix}.retry.`;
  const configured = config.retry.scheduleMs.map((ms) => retryTopic(config.topics.prefix, ms));
  const existing = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
  const topics = [...new Set([...configured, ...existing])].sort();

  const lateness = lateMetric(context);
  const consumer = new ConcurrentConsumer({
    kafka: context.kafka,
    groupId: `${config.topics.prefix}.retry`,
    topics,
    maxInFlight: config.delivery.workerConcurrency,
    drainTimeoutMs: config.delivery.timeoutMs * 5 + 5_000,
    notBefore: dueAtOf,
    clock,
    sessionTimeoutMs: config.kafka.sessionTimeoutMs,
    logger,
    metrics: context.metrics,
    handler: taskHandler({
      avro,
      deadLetters,
      logger,
      handle: async (task, consumed) => {
        const dueAtMs = task.dueAtMs ?? dueAtOf(consumed.message) ?? clock.now();
        const tier = consumed.topic.slice(prefix.length);
        // Observed when the attempt starts, so time spent waiting in a busy lane counts too.
        await dispatcher.submit(task, () =>
          lateness.observe({ tier }, Math.max(0, clock.now() - dueAtMs) / 1_000),
        );
      },
    }),
  });
  await consumer.start();
  logger.info({ topics }, 'delay consumer started');
  return { stop: () => consumer.stop() };
}

function lateMetric(context: AppContext): Histogram<'tier'> {
  const name = 'hookline_retry_lateness_seconds';
  const existing = context.metrics.getSingleMetric(name);
  if (existing) return existing as Histogram<'tier'>;
  return new Histogram({
    name,
    help: 'How late a retry starts after its due time, by delay tier.',
    labelNames: ['tier'],
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [context.metrics],
  });
}
