import type { Admin, Kafka } from 'kafkajs';
import { Registry } from 'prom-client';
import { mountAdminApi } from '../admin-api';
import type { PrimaryLink } from '../process/child';
import type { AvroCodec } from '../avro/codec';
import { connectAvro } from '../avro/connect';
import { registryAnswers } from '../avro/registry-health';
import { startAudiences } from '../audiences/role';
import { startCatalog, type CatalogStore } from '../catalog';
import type { Config } from '../config/config';
import { systemClock, type Clock } from '../core/clock';
import { ConfigError } from '../core/errors';
import { Lifecycle } from '../core/lifecycle';
import { deletionRoutes } from '../deletions/routes';
import { CircuitBoard } from '../delivery/circuit/board';
import type { DeliveryWorker } from '../delivery/role';
import { createHttpServer, type ReadinessCheck } from '../http/server';
import { Router } from '../http/router';
import { IngestAdmission } from '../ingest/admission';
import { createIngestMetrics } from '../ingest/metrics';
import { EventPublisher } from '../ingest/publisher';
import { registerTrackingRoutes } from '../ingest/routes';
import { BatchingProducer } from '../kafka/batching-producer';
import { connectWhenReachable, createKafka, producerSettings } from '../kafka/client';
import type { BrokerOutageWatch } from '../kafka/outage';
import { ensureTopics, topicNames, type TopicNames } from '../kafka/topics';
import { createLogger, type Logger } from '../observability/logger';
import { createMetricsRegistry } from '../observability/metrics';
import { createAddressPolicy } from '../security/address-policy';
import { startOperations, type Operations } from '../operations';
import { sharedAttemptIndexSettings } from '../operations/attempts/advertised-url';
import { EventCodec } from '../records/event';
import { createEventRouter, type RouterRole } from '../routing/role';
import { startPipelineRoles } from './pipeline-roles';

/** Where the cluster is: from config, or from a local stack started by `npm start`. */
export interface ClusterAddress {
  kafkaBrokers: string[];
  schemaRegistryUrl: string;
}

export interface AppOptions {
  config: Config;
  cluster: ClusterAddress;
  logger?: Logger;
  clock?: Clock;
  /** A child of HOOKLINE_WORKERS: serves every process's /metrics and readiness (process/child.ts). */
  linkToPrimary?: (metrics: Registry) => PrimaryLink;
  /** Told what the Kafka client logs, so that a failed start-up can tell a broker outage (main.ts). */
  outage?: BrokerOutageWatch;
  /**
   * Aborted when the process is asked to stop during start-up: waiting for the brokers to become
   * reachable ends (a StoppedError), and what started is stopped.
   */
  signal?: AbortSignal;
}

/** The shared parts the roles were built from; for tests, the bench and diagnostics, not for roles. */
export interface AppParts {
  config: Config;
  metrics: Registry;
  kafka: Kafka;
  admin: Admin;
  avro: AvroCodec;
  events: EventCodec;
  catalog: CatalogStore;
  topics: TopicNames;
}

export interface App {
  parts: AppParts;
  roles: { producer: BatchingProducer; router?: RouterRole; worker?: DeliveryWorker; operations: Operations };
  /** Bound HTTP port. */
  httpPort: number;
  /** Bound port of the admin API's own server (HOOKLINE_ADMIN_PORT); undefined: on httpPort. */
  adminPort: number | undefined;
  stop(): Promise<void>;
}

/**
 * The composition root: builds config's clients and stores, then each role with exactly what it
 * uses, mounts every HTTP route, and tears everything down in reverse order on stop. Stop order:
 * audiences, worker, router, operations, circuit board, producer, catalog, Kafka admin, HTTP servers.
 */
export async function startApp(options: AppOptions): Promise<App> {
  const { config, cluster } = options;
  const keyring = config.secrets.keyring;
  if (!keyring)
    throw new ConfigError('HOOKLINE_SECRETS_KEY', 'required: the key that seals destination secrets');
  const logger = options.logger ?? createLogger({ level: config.logLevel });
  const clock = options.clock ?? systemClock;
  const lifecycle = new Lifecycle(logger);
  const metrics = createMetricsRegistry();
  const router = new Router();
  let started = false;
  let admin: Admin | undefined;
  const readiness: ReadinessCheck[] = [
    { name: 'startup', check: async () => started },
    {
      name: 'kafka',
      check: async () => admin !== undefined && (await admin.describeCluster()).brokers.length > 0,
    },
    { name: 'schemaRegistry', check: () => registryAnswers(cluster.schemaRegistryUrl, config.registry) },
  ];
  const primary = options.linkToPrimary?.(metrics);
  if (primary) readiness.push(primary.readiness);
  const http = createHttpServer({ ...config.http, ...primary?.server, router, metrics, readiness, logger });
  // With HOOKLINE_ADMIN_PORT, the admin API is served only by a server of its own (plus /healthz).
  const adminRouter = config.adminHttp ? new Router() : router;
  const adminHttp =
    config.adminHttp && createHttpServer({ ...config.adminHttp, router: adminRouter, logger });

  try {
    const httpPort = await http.listen();
    lifecycle.onStop('http', () => http.close());
    const adminPort = await adminHttp?.listen();
    if (adminHttp) lifecycle.onStop('admin-http', () => adminHttp.close());

    // --- clients and shared stores ---
    const kafka = createKafka({
      brokers: cluster.kafkaBrokers,
      clientId: config.kafka.clientId,
      ssl: config.kafka.ssl,
      sasl: config.kafka.sasl,
      logger,
      patches: 'hookline-process',
      outage: options.outage,
    });
    const connectedAdmin = kafka.admin();
    await connectWhenReachable(connectedAdmin, logger, 'kafka admin', options.signal);
    admin = connectedAdmin;
    lifecycle.onStop('kafka-admin', () => connectedAdmin.disconnect());
    const topics = topicNames(config.topics.prefix);
    if (config.topics.create) {
      await ensureTopics({
        admin: connectedAdmin,
        prefix: config.topics.prefix,
        defaultPartitions: config.topics.partitions,
        replicationFactor: config.topics.replicationFactor,
        retryScheduleMs: config.retry.scheduleMs,
        logger,
      });
    }
    const avro = await connectAvro({ ...config.registry, url: cluster.schemaRegistryUrl, logger });
    const events = new EventCodec(avro);
    // The SSRF guard: one policy for URLs at the door (catalog) and addresses at delivery (worker).
    const addressPolicy = createAddressPolicy({ allowedNetworks: config.security.allowedNetworks });
    const catalog = await startCatalog({
      kafka,
      admin: connectedAdmin,
      avro,
      topic: topics.catalog,
      clientId: config.kafka.clientId,
      sealer: keyring,
      logger,
      clock,
      metrics,
      addressPolicy,
      ackTimeoutMs: config.kafka.ackTimeoutMs,
    });
    lifecycle.onStop('catalog', () => catalog.stop());
    readiness.push({ name: 'catalog', check: async () => catalog.ready() });

    // One idempotent producer shared by the roles; it stops after them.
    const kafkaProducer = kafka.producer(producerSettings());
    await connectWhenReachable(kafkaProducer, logger, 'kafka producer', options.signal);
    lifecycle.onStop('producer', () => kafkaProducer.disconnect());
    const producer = new BatchingProducer({
      producer: kafkaProducer,
      ackTimeoutMs: config.kafka.ackTimeoutMs,
      clock,
      logger,
    });
    const publisher = new EventPublisher({
      producer,
      events,
      avro,
      eventsTopic: topics.events,
      ingestDlqTopic: topics.ingestDlq,
    });
    // What the stages that follow and write Hookline's topics share.
    const clients = { kafka, admin: connectedAdmin, avro, producer, topics, clientId: config.kafka.clientId };
    // Consumers' handlers (router, worker) are retried when a write fails: theirs wait for Kafka's
    // answer instead of timing out, so a broker outage does not make them write everything twice.
    const handlerProducer = producer.untilAcknowledged();
    // Circuit states shared by every process (the admin read; workers start from them).
    const board = config.delivery.circuit && (await CircuitBoard.start({ ...clients, clock, logger }));
    if (board) lifecycle.onStop('circuit board', () => board.stop());
    const routing = {
      catalog: catalog.store,
      events,
      avro,
      producer: handlerProducer,
      topics: { deliveries: topics.deliveries, dlq: topics.dlq },
      clock,
    };

    // --- roles ---
    if (config.roles.includes('ingest')) {
      const admission = new IngestAdmission({ limits: config.ingest });
      registerTrackingRoutes({
        router,
        catalog: catalog.store,
        publisher,
        admission,
        metrics: createIngestMetrics(metrics, admission),
        clock,
        logger: logger.child({ component: 'ingest' }),
      });
    }
    // Operations (dead letters, redrive, attempts, replay) serve the admin API on every process;
    // the children of HOOKLINE_WORKERS keep one attempt index, in one of them (or none:
    // HOOKLINE_ATTEMPT_INDEX=false).
    const sharedAttempts = config.operations.attemptIndex !== 'false' ? primary?.attempts : undefined;
    const operations = await startOperations({
      ...clients,
      events,
      catalog: catalog.store,
      // Replays route to one destination, without de-duplication, with router metrics of their own.
      replayRouter: createEventRouter({
        ...routing,
        dedupe: { windowMs: 0, maxEntries: 0 },
        metrics: new Registry(),
        logger: logger.child({ component: 'replay' }),
      }),
      settings: config.operations,
      ...(sharedAttempts && !sharedAttempts.keeps && { remoteAttempts: sharedAttempts.remote }),
      shared: sharedAttemptIndexSettings(config, adminPort ?? httpPort),
      metrics,
      clock,
      logger,
    });
    lifecycle.onStop('operations', () => operations.stop());
    if (sharedAttempts?.keeps) {
      const stopServing = sharedAttempts.serve(operations.attempts);
      lifecycle.onStop('attempt-queries', async () => stopServing());
    }
    const { worker, router: routerRole } = await startPipelineRoles({
      config,
      clients,
      handlerProducer,
      routing,
      catalog,
      secrets: keyring,
      circuitBoard: board,
      addressPolicy,
      lifecycle,
      metrics,
      clock,
      logger,
    });
    const audiences = await startAudiences({ ...clients, events, catalog, config, metrics, clock, logger });
    lifecycle.onStop('audiences', () => audiences.stop());
    // --- the admin API, every stage's routes in one place ---
    mountAdminApi({
      router: adminRouter,
      adminToken: config.adminToken,
      logger,
      groups: [
        { routes: catalog.routes({ circuits: board }), mapError: catalog.mapError },
        operations,
        audiences.api,
        {
          routes: deletionRoutes({
            catalog: catalog.store,
            publisher,
            clock,
            logger: logger.child({ component: 'deletions' }),
          }),
          mapError: catalog.mapError,
        },
      ],
    });

    started = true;
    logger.info({ port: httpPort, adminPort, roles: config.roles }, 'hookline started');
    return {
      parts: { config, metrics, kafka, admin: connectedAdmin, avro, events, catalog: catalog.store, topics },
      roles: { producer, router: routerRole, worker, operations },
      httpPort,
      adminPort,
      stop: () => lifecycle.stop(),
    };
  } catch (err) {
    await lifecycle.stop();
    throw err;
  }
}
