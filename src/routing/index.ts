import type { AppContext } from '../app';
import { DeadLetterWriter } from '../delivery/dead-letter';
import type { BatchingProducer } from '../kafka/batching-producer';
import { ConcurrentConsumer } from '../kafka/concurrent-consumer';
import { DedupeWindow } from './dedupe';
import { createRouterMetrics } from './metrics';
import { EventRouter } from './router';

export interface RouterRole {
  router: EventRouter;
  stop(): Promise<void>;
}

/**
 * The router role: a consumer group on `hookline.events` that turns each event into delivery
 * tasks. An event's offset is committed once its tasks are on Kafka.
 */
export async function startRouter(options: {
  context: AppContext;
  producer: BatchingProducer;
}): Promise<RouterRole> {
  const { context, producer } = options;
  const { config, topics, clock } = context;
  const logger = context.logger.child({ component: 'router' });
  const router = new EventRouter({
    catalog: context.catalog,
    events: context.events,
    avro: context.avro,
    producer,
    deadLetters: new DeadLetterWriter({ producer, avro: context.avro, topic: topics.dlq, clock }),
    dedupe: new DedupeWindow({
      windowMs: config.routing.dedupeWindowMs,
      maxEntries: config.routing.dedupeMaxEntries,
      clock,
    }),
    deliveriesTopic: topics.deliveries,
    metrics: createRouterMetrics(context.metrics),
    clock,
    logger,
  });
  const consumer = new ConcurrentConsumer({
    kafka: context.kafka,
    groupId: `${config.topics.prefix}.router`,
    topics: [topics.events],
    maxInFlight: 2_000,
    sessionTimeoutMs: config.kafka.sessionTimeoutMs,
    logger,
    metrics: context.metrics,
    // One user's events reach hookline.deliveries in the order they were accepted.
    keyOrdered: true,
    handler: router.handle,
  });
  await consumer.start();
  return { router, stop: () => consumer.stop() };
}
