import type { Registry } from 'prom-client';
import type { CatalogService, CatalogStore } from '../catalog';
import type { Config } from '../config/config';
import type { Clock } from '../core/clock';
import type { Lifecycle } from '../core/lifecycle';
import type { CircuitBoard } from '../delivery/circuit/board';
import { startDeliveryWorker, type DeliveryWorker } from '../delivery/role';
import type { BatchingProducer } from '../kafka/batching-producer';
import type { TopicNames } from '../kafka/topics';
import type { Logger } from '../observability/logger';
import { createEventRouter, startRouter, type RouterRole } from '../routing/role';
import type { AddressPolicy } from '../security/address-policy';
import type { SecretKeyring } from '../security/secrets';

type RouterOptions = Parameters<typeof createEventRouter>[0];
type WorkerOptions = Parameters<typeof startDeliveryWorker>[0];

export interface PipelineRolesOptions {
  config: Config;
  /** What the stages that follow and write Hookline's topics share (compose/index.ts). */
  clients: Pick<WorkerOptions, 'kafka' | 'admin' | 'avro'> & { topics: TopicNames; clientId: string };
  /** The producer the consumers' handlers write with: retried until Kafka answers. */
  handlerProducer: BatchingProducer;
  /** What every event router is built from (the replay router's too). */
  routing: Omit<RouterOptions, 'dedupe' | 'metrics' | 'logger' | 'local'>;
  catalog: { store: CatalogStore; service: Pick<CatalogService, 'disableWebhook'> };
  secrets: SecretKeyring;
  circuitBoard: CircuitBoard | undefined;
  addressPolicy: AddressPolicy;
  lifecycle: Lifecycle;
  metrics: Registry;
  clock: Clock;
  logger: Logger;
}

/**
 * The pipeline's consuming roles this process runs (HOOKLINE_ROLES): the worker (delivery) and the
 * router. With both, the router makes first attempts in the worker's lanes (routing/first-attempts.ts):
 * the worker starts first and stops last.
 */
export async function startPipelineRoles(
  options: PipelineRolesOptions,
): Promise<{ worker?: DeliveryWorker; router?: RouterRole }> {
  const { config, clients, handlerProducer, lifecycle, metrics, clock, logger } = options;
  const worker = config.roles.includes('worker')
    ? await startDeliveryWorker({
        ...clients,
        // Hand-offs (attempt records, delay topics) share requests: one each cost the broker and
        // kafkajs more than the records themselves. The receiver has the event already.
        producer: handlerProducer.lingering(config.kafka.lingerMs),
        catalog: options.catalog.store,
        secrets: options.secrets,
        disableWebhook: (destinationId, url, reason) =>
          options.catalog.service.disableWebhook(destinationId, url, reason),
        topicPrefix: config.topics.prefix,
        delivery: config.delivery,
        circuitBoard: options.circuitBoard,
        retry: config.retry,
        addressPolicy: options.addressPolicy,
        rotationOverlapMs: config.signing.rotationOverlapMs,
        sessionTimeoutMs: config.kafka.sessionTimeoutMs,
        fetchPartitionBytes: config.kafka.fetchPartitionBytes,
        metrics,
        clock,
        logger,
      })
    : undefined;
  if (worker) lifecycle.onStop('worker', () => worker.stop());
  const direct = config.routing.direct && config.roles.includes('router') ? worker : undefined;
  const router = config.roles.includes('router')
    ? await startRouter({
        kafka: clients.kafka,
        admin: clients.admin,
        router: createEventRouter({
          ...options.routing,
          dedupe: { windowMs: config.routing.dedupeWindowMs, maxEntries: config.routing.dedupeMaxEntries },
          ...(direct && { local: direct.local }),
          metrics,
          logger: logger.child({ component: 'router' }),
        }),
        groupId: `${config.topics.prefix}.router`,
        eventsTopic: clients.topics.events,
        // Its events wait for their deliveries: as many as the worker's tasks, drained as the worker's.
        maxInFlight: Math.max(config.routing.concurrency, direct ? config.delivery.workerConcurrency : 0),
        // ... and held no further than the worker's lanes need (Dispatcher.limit).
        ...(direct && { drainTimeoutMs: direct.drainTimeoutMs, holdBack: direct.dispatcher }),
        sessionTimeoutMs: config.kafka.sessionTimeoutMs,
        fetchPartitionBytes: config.kafka.fetchPartitionBytes,
        metrics,
        logger: logger.child({ component: 'router' }),
      })
    : undefined;
  if (router) lifecycle.onStop('router', () => router.stop());
  return { worker, router };
}
