import type { Admin, Kafka } from 'kafkajs';
import type { Registry } from 'prom-client';
import type { AvroCodec } from '../avro/codec';
import type { Config } from '../config/config';
import type { RetryPolicy } from '../config/retry';
import type { Clock } from '../core/clock';
import type { BatchingProducer } from '../kafka/batching-producer';
import { ConcurrentConsumer, type ConsumedMessage } from '../kafka/consumer';
import type { Logger } from '../observability/logger';
import type { CatalogView } from '../records/catalog-model';
import type { DeliveryTask } from '../records/delivery-task';
import type { AddressPolicy } from '../security/address-policy';
import { DeadLetterWriter } from '../records/dead-letter';
import { DEFAULT_BREAKER_POLICY } from './circuit/breaker';
import type { CircuitBoard } from './circuit/board';
import { CircuitRegistry } from './circuit/registry';
import { DeliveredLookup } from './delivered-lookup';
import { Dispatcher } from './dispatcher';
import { DeliveryExecutor } from './executor';
import { createWebhookClient } from './http/client';
import { createDeliveryMetrics } from './metrics';
import { SettingsOpener } from './secrets';
import type { SecretOpener } from '../security/secrets';
import { startDelayConsumer } from './retry/delay-consumer';
import { submitOptions, taskHandler } from './task-handler';

/** Slow destinations (see admission.ts) may hold at most half of a worker's tasks together. */
const SLOW_DESTINATIONS_SHARE = 0.5;
/** A destination whose requests take longer than this (or half the delivery timeout) is slow. */
const SLOW_RUN_MS = 2_000;
/** How often lanes that turned slow give up their queues. */
const SWEEP_INTERVAL_MS = 250;

export interface DeliveryWorkerOptions {
  kafka: Kafka;
  /** Lists the delay topics on the cluster. */
  admin: Admin;
  avro: AvroCodec;
  catalog: CatalogView;
  /** Opens sealed destination secrets (the secrets keyring). */
  secrets: SecretOpener;
  /** Stops calls to a URL that answered 410 Gone (a catalog write). */
  disableWebhook: (destinationId: string, url: string, reason: string) => Promise<unknown>;
  producer: BatchingProducer;
  topicPrefix: string;
  topics: { deliveries: string; dlq: string; attempts: string };
  /** Timeouts, concurrency and queue bounds, circuit breakers (undefined: off). */
  delivery: Config['delivery'];
  /** Circuit states shared with every other process (see circuit/registry.ts). */
  circuitBoard?: CircuitBoard;
  retry: RetryPolicy;
  /** The SSRF guard: which addresses webhook requests may connect to. */
  addressPolicy: AddressPolicy;
  /** After a Standard Webhooks secret changes, the previous one also signs for this long. */
  rotationOverlapMs: number;
  sessionTimeoutMs: number;
  /** HOOKLINE_KAFKA_FETCH_PARTITION_BYTES. */
  fetchPartitionBytes: number;
  metrics: Registry;
  clock: Clock;
  logger: Logger;
}

export interface DeliveryWorker {
  dispatcher: Dispatcher;
  /** First attempts of tasks read elsewhere (the router's, routing/first-attempts.ts). */
  local: {
    submit(task: DeliveryTask, consumed: ConsumedMessage): Promise<void>;
    deliveredBefore(topic: string, partition: number): Promise<Map<number, string[]>>;
  };
  /** How long its consumers' stop waits for the tasks in flight. */
  drainTimeoutMs: number;
  /** The circuit breaker of every URL this worker called. */
  circuits: CircuitRegistry;
  executor: DeliveryExecutor;
  stop(): Promise<void>;
}

/**
 * The worker role: a consumer group on `hookline.deliveries` (`<prefix>.worker`) and one on the
 * delay topics (`<prefix>.retry`) whose tasks go through per-destination lanes to the executor.
 * Offsets are committed in order once each task was delivered or durably handed to a delay or
 * dead-letter topic.
 */
export async function startDeliveryWorker(options: DeliveryWorkerOptions): Promise<DeliveryWorker> {
  const { producer, avro, topics, clock, delivery, retry } = options;
  const logger = options.logger.child({ component: 'worker' });
  const client = createWebhookClient({
    timeoutMs: delivery.timeoutMs,
    maxSocketsPerOrigin: delivery.destinationConcurrency,
    addressPolicy: options.addressPolicy,
    logger,
    clock,
  });
  const deadLetters = new DeadLetterWriter({ producer, avro, topic: topics.dlq, clock });
  const circuits = new CircuitRegistry({
    clock,
    logger,
    metrics: options.metrics,
    ...(options.circuitBoard && { board: options.circuitBoard }),
    ...(delivery.circuit?.autoDisableAfterMs !== undefined && {
      autoDisable: { afterMs: delivery.circuit.autoDisableAfterMs, disableWebhook: options.disableWebhook },
    }),
    policy: delivery.circuit && {
      ...DEFAULT_BREAKER_POLICY,
      ...delivery.circuit,
      maxCooldownMs: delivery.circuit.cooldownMs * 20,
    },
  });
  const executor = new DeliveryExecutor({
    catalog: options.catalog,
    secrets: new SettingsOpener({ opener: options.secrets }),
    client,
    producer,
    avro,
    deadLetters,
    retryPolicy: retry,
    rotationOverlapMs: options.rotationOverlapMs,
    disableWebhook: options.disableWebhook,
    topicPrefix: options.topicPrefix,
    attemptsTopic: topics.attempts,
    deliveriesTopic: topics.deliveries,
    metrics: createDeliveryMetrics(options.metrics),
    ...(delivery.circuit && { circuits }),
    clock,
    logger,
  });
  const dispatcher = new Dispatcher({
    maxActivePerDestination: delivery.destinationConcurrency,
    maxQueuedPerDestination: delivery.destinationQueue,
    deferAfterWaitMs: retry.scheduleMs[0]!,
    maxTotal: delivery.workerConcurrency,
    slowShare: SLOW_DESTINATIONS_SHARE,
    slowRunMs: Math.min(SLOW_RUN_MS, delivery.timeoutMs / 2),
    run: executor.execute,
    defer: executor.defer,
    rateOf: executor.rateOf,
    clock,
  });
  const sweeper = setInterval(() => dispatcher.sweep(), SWEEP_INTERVAL_MS).unref();
  const delivered = new DeliveredLookup({
    kafka: options.kafka,
    admin: options.admin,
    attemptsTopic: topics.attempts,
    clientId: `${options.topicPrefix}-worker`,
    clock,
    logger,
  });
  const drainTimeoutMs = delivery.timeoutMs * 5 + 5_000;
  const consumerSettings = {
    kafka: options.kafka,
    admin: options.admin,
    doneBefore: (topic: string, partition: number) => delivered.offsets(topic, partition),
    maxInFlight: delivery.workerConcurrency,
    drainTimeoutMs,
    sessionTimeoutMs: options.sessionTimeoutMs,
    fetchPartitionBytes: options.fetchPartitionBytes,
    metrics: options.metrics,
  };
  const consumer = new ConcurrentConsumer({
    ...consumerSettings,
    // Holds what keeps the lanes' requests fed (Dispatcher.limit), not a backlog in memory. Not the
    // delay consumer: its records wait for their due time, and a due retry waits behind nothing.
    holdBack: dispatcher,
    groupId: `${options.topicPrefix}.worker`,
    topics: [topics.deliveries],
    logger,
    handler: taskHandler({
      avro,
      deadLetters,
      logger,
      handle: (task, consumed) => dispatcher.submit(task, submitOptions(consumed)),
    }),
  });
  await consumer.start();
  // Start-up may run again in this process (start-up.ts): a failure here stops what started.
  const delayConsumer = await startDelayConsumer({
    ...consumerSettings,
    admin: options.admin,
    avro,
    dispatcher,
    repark: executor.repark,
    forward: executor.forward,
    deadLetters,
    topicPrefix: options.topicPrefix,
    scheduleMs: retry.scheduleMs,
    clock,
    logger: options.logger.child({ component: 'retry' }),
  }).catch(async (err: unknown) => {
    executor.stop();
    await consumer.stop();
    clearInterval(sweeper);
    client.close();
    throw err;
  });
  return {
    dispatcher,
    local: {
      submit: (task, consumed) => dispatcher.submit(task, submitOptions(consumed)),
      deliveredBefore: (topic, partition) => delivered.byOffset(topic, partition),
    },
    circuits,
    executor,
    drainTimeoutMs,
    stop: async () => {
      executor.stop(); // a hand-off Kafka does not take now is left for the next process
      await Promise.all([consumer.stop(), delayConsumer.stop()]);
      clearInterval(sweeper);
      client.close();
    },
  };
}
