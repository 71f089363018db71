import type { AppContext } from '../app';
import type { BatchingProducer } from '../kafka/batching-producer';
import { ConcurrentConsumer } from '../kafka/concurrent-consumer';
import { DeadLetterWriter } from './dead-letter';
import { Dispatcher } from './dispatcher';
import { DeliveryExecutor } from './executor';
import { createWebhookClient } from './http-client';
import { createDeliveryMetrics } from './metrics';
import { taskHandler } from './task-handler';
import { startDelayConsumer } from '../retry/delay-consumer';

export interface DeliveryWorker {
  dispatcher: Dispatcher;
  executor: DeliveryExecutor;
  stop(): Promise<void>;
}

/**
 * The worker role: a consumer group on `hookline.deliveries` whose tasks go through per-
 * destination lanes to the executor. Offsets are committed in order once each task was
 * delivered or durably handed to a delay or dead-letter topic.
 */
export async function startDeliveryWorker(options: {
  context: AppContext;
  producer: BatchingProducer;
}): Promise<DeliveryWorker> {
  const { context, producer } = options;
  const { config, avro, topics, clock } = context;
  const logger = context.logger.child({ component: 'worker' });
  const client = createWebhookClient({
    timeoutMs: config.delivery.timeoutMs,
    maxSocketsPerOrigin: config.delivery.destinationConcurrency,
    logger,
  });
  const deadLetters = new DeadLetterWriter({ producer, avro, topic: topics.dlq, clock });
  const executor = new DeliveryExecutor({
    catalog: context.catalog,
    client,
    producer,
    avro,
    deadLetters,
    retryPolicy: config.retry,
    disableWebhook: (destinationId, url, reason) =>
      context.catalogService.disableWebhook(destinationId, url, reason),
    topicPrefix: config.topics.prefix,
    attemptsTopic: topics.attempts,
    metrics: createDeliveryMetrics(context.metrics),
    clock,
    logger,
  });
  const dispatcher = new Dispatcher({
    maxActivePerDestination: config.delivery.destinationConcurrency,
    maxQueuedPerDestination: config.delivery.destinationQueue,
    deferAfterWaitMs: config.retry.scheduleMs[0]!,
    run: executor.execute,
    defer: executor.defer,
    clock,
  });
  const consumer = new ConcurrentConsumer({
    kafka: context.kafka,
    groupId: `${config.topics.prefix}.worker`,
    topics: [topics.deliveries],
    maxInFlight: config.delivery.workerConcurrency,
    drainTimeoutMs: config.delivery.timeoutMs * 5 + 5_000,
    sessionTimeoutMs: config.kafka.sessionTimeoutMs,
    logger,
    metrics: context.metrics,
    handler: taskHandler({ avro, deadLetters, logger, handle: (task) => dispatcher.submit(task) }),
  });
  await consumer.start();
  const delayConsumer = await startDelayConsumer({ context, dispatcher, deadLetters });
  return {
    dispatcher,
    executor,
    stop: async () => {
      await Promise.all([consumer.stop(), delayConsumer.stop()]);
      client.close();
    },
  };
}
