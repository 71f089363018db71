import { adminAuthenticator } from './admin/auth';
import type { AppContext } from './app';
import { registerDeletionRoutes } from './deletions/routes';
import { startDeliveryWorker } from './delivery/worker';
import { EventPublisher } from './ingest/publisher';
import { createIngestMetrics } from './ingest/metrics';
import { registerTrackingRoutes } from './ingest/routes';
import { BatchingProducer } from './kafka/batching-producer';
import { producerSettings } from './kafka/client';
import type { Lifecycle } from './lifecycle';
import { startOperations } from './operations';
import { startRouter } from './routing';

/**
 * Starts the roles this process runs (HOOKLINE_ROLES): `ingest` (tracking API), `router`
 * (events → delivery tasks) and `worker` (delivery tasks → webhooks). They share one idempotent
 * producer. The operations tools (dead letters, attempts, replay) run on every process. Stop order
 * (reverse of start): worker, router, operations, producer.
 */
export async function startRoles(context: AppContext, lifecycle: Lifecycle) {
  const { config, kafka } = context;
  const producer = kafka.producer(producerSettings());
  await producer.connect();
  lifecycle.onStop('producer', () => producer.disconnect());
  const batching = new BatchingProducer({
    producer,
    ackTimeoutMs: config.kafka.ackTimeoutMs,
    logger: context.logger,
  });

  const publisher = new EventPublisher({
    producer: batching,
    events: context.events,
    avro: context.avro,
    eventsTopic: context.topics.events,
    ingestDlqTopic: context.topics.ingestDlq,
  });
  // Part of the admin API, which every process serves.
  registerDeletionRoutes({
    router: context.router,
    authenticate: adminAuthenticator(config.adminToken),
    catalog: context.catalog,
    publisher,
    clock: context.clock,
    logger: context.logger.child({ component: 'deletions' }),
  });
  if (config.roles.includes('ingest')) {
    registerTrackingRoutes({
      router: context.router,
      catalog: context.catalog,
      publisher,
      metrics: createIngestMetrics(context.metrics),
      clock: context.clock,
      logger: context.logger.child({ component: 'ingest' }),
    });
  }
  // --- operations: dead letters, redrive, attempts, replay (admin API, every process) ---
  const operations = await startOperations({ context, producer: batching, settings: config.operations });
  lifecycle.onStop('operations', () => operations.stop());
  // --- end operations ---
  const router = config.roles.includes('router')
    ? await startRouter({ context, producer: batching })
    : undefined;
  if (router) lifecycle.onStop('router', () => router.stop());
  const worker = config.roles.includes('worker')
    ? await startDeliveryWorker({ context, producer: batching })
    : undefined;
  if (worker) lifecycle.onStop('worker', () => worker.stop());
  return { producer: batching, router, worker, operations };
}
