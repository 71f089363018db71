import type { Admin, Kafka } from 'kafkajs';
import type { Registry } from 'prom-client';
import type { AvroCodec } from '../avro/codec';
import type { Clock } from '../core/clock';
import type { BatchingProducer } from '../kafka/batching-producer';
import { ConcurrentConsumer, type HoldBack } from '../kafka/consumer';
import type { Logger } from '../observability/logger';
import type { CatalogView } from '../records/catalog-model';
import { DeadLetterWriter } from '../records/dead-letter';
import type { EventCodec } from '../records/event';
import { DedupeWindow } from './dedupe';
import { FirstAttempts, type LocalDelivery } from './first-attempts';
import { createRouterMetrics } from './metrics';
import { EventRouter } from './router';

export interface EventRouterDeps {
  catalog: CatalogView;
  events: EventCodec;
  avro: AvroCodec;
  producer: BatchingProducer;
  topics: { deliveries: string; dlq: string };
  /** A client's retry of the same messageId within the window is routed once; 0 turns it off. */
  dedupe: { windowMs: number; maxEntries: number };
  /** This process's delivery lanes, when it also delivers: first attempts are made here. */
  local?: LocalDelivery;
  metrics: Registry;
  clock: Clock;
  logger: Logger;
}

/**
 * An EventRouter: event → one delivery task per destination, on `hookline.deliveries` or, given
 * `local`, attempted in this process.
 */
export function createEventRouter(deps: EventRouterDeps): EventRouter {
  const { avro, producer, topics, clock } = deps;
  return new EventRouter({
    catalog: deps.catalog,
    events: deps.events,
    avro,
    producer,
    deadLetters: new DeadLetterWriter({ producer, avro, topic: topics.dlq, clock }),
    dedupe: new DedupeWindow({ ...deps.dedupe, clock }),
    deliveriesTopic: topics.deliveries,
    ...(deps.local && { firstAttempts: new FirstAttempts(deps.local) }),
    metrics: createRouterMetrics(deps.metrics),
    clock,
    logger: deps.logger,
  });
}

export interface RouterRoleOptions {
  kafka: Kafka;
  /** Measures the group's lag (hookline_consumer_lag). */
  admin: Admin;
  router: EventRouter;
  /** `<prefix>.router`. */
  groupId: string;
  eventsTopic: string;
  /** Events handled at once (HOOKLINE_ROUTER_CONCURRENCY; the worker's when it delivers too). */
  maxInFlight: number;
  /** How long stop() waits for the events in flight (longer when they are being delivered). */
  drainTimeoutMs?: number;
  /** When its events are delivered in this process: how many the worker's lanes need held. */
  holdBack?: HoldBack;
  sessionTimeoutMs: number;
  /** HOOKLINE_KAFKA_FETCH_PARTITION_BYTES. */
  fetchPartitionBytes: number;
  metrics: Registry;
  logger: Logger;
}

export interface RouterRole {
  router: EventRouter;
  stop(): Promise<void>;
}

/**
 * The router role: a consumer group on `hookline.events` that turns each event into delivery
 * tasks. An event's offset is committed once its tasks are on Kafka, or, attempted in this
 * process, once each was delivered or durably handed on.
 */
export async function startRouter(options: RouterRoleOptions): Promise<RouterRole> {
  const { router } = options;
  const consumer = new ConcurrentConsumer({
    kafka: options.kafka,
    admin: options.admin,
    groupId: options.groupId,
    topics: [options.eventsTopic],
    maxInFlight: options.maxInFlight,
    ...(options.drainTimeoutMs !== undefined && { drainTimeoutMs: options.drainTimeoutMs }),
    ...(options.holdBack && { holdBack: options.holdBack }),
    sessionTimeoutMs: options.sessionTimeoutMs,
    fetchPartitionBytes: options.fetchPartitionBytes,
    logger: options.logger,
    metrics: options.metrics,
    // One user's events reach hookline.deliveries, or the lanes, in the order they were accepted.
    keyOrdered: true,
    ...(router.takeOver && { doneBefore: router.takeOver }),
    handler: router.handle,
  });
  await consumer.start();
  return { router, stop: () => consumer.stop() };
}
