import { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import type { Admin, Kafka } from 'kafkajs';
import type { Registry } from 'prom-client';
import { AvroCodec } from './avro/codec';
import { defaultSchemaDir, loadSchemaFiles } from './avro/schema-files';
import { registerAdminRoutes } from './admin/routes';
import { startCatalog, type CatalogService } from './catalog';
import type { CatalogView } from './catalog/model';
import { systemClock, type Clock } from './clock';
import type { Config } from './config/config';
import { EventCodec } from './events/codec';
import { createHttpServer, type ReadinessCheck } from './http/server';
import { Router } from './http/router';
import { createKafka } from './kafka/client';
import { ensureTopics, topicNames, type TopicNames } from './kafka/topics';
import { Lifecycle } from './lifecycle';
import { createLogger, type Logger } from './observability/logger';
import { createMetricsRegistry } from './observability/metrics';
import { startRoles } from './roles';

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
}

/** Everything the roles share; built once by the composition root. */
export interface AppContext {
  config: Config;
  logger: Logger;
  clock: Clock;
  metrics: Registry;
  kafka: Kafka;
  admin: Admin;
  registry: SchemaRegistry;
  avro: AvroCodec;
  events: EventCodec;
  /** Sources and destinations, materialised from the catalog topic. */
  catalog: CatalogView;
  /** Writes catalog changes (admin API, and the worker when a URL answers 410 Gone). */
  catalogService: CatalogService;
  topics: TopicNames;
  router: Router;
}

export interface App {
  context: AppContext;
  roles: Awaited<ReturnType<typeof startRoles>>;
  /** Bound HTTP port. */
  httpPort: number;
  stop(): Promise<void>;
}

/**
 * The composition root: builds every component from config, wires them, starts the HTTP
 * server, and tears everything down in reverse order on stop.
 */
export async function startApp(options: AppOptions): Promise<App> {
  const { config, cluster } = options;
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
  const http = createHttpServer({
    host: config.http.host,
    port: config.http.port,
    router,
    metrics,
    readiness,
    logger,
  });

  try {
    const httpPort = await http.listen();
    lifecycle.onStop('http', () => http.close());
    const kafka = createKafka({
      brokers: cluster.kafkaBrokers,
      clientId: config.kafka.clientId,
      ssl: config.kafka.ssl,
      sasl: config.kafka.sasl,
      logger,
    });
    const connectedAdmin = kafka.admin();
    await connectedAdmin.connect();
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

    const registry = new SchemaRegistry({
      host: cluster.schemaRegistryUrl,
      auth:
        config.registry.username && config.registry.password
          ? { username: config.registry.username, password: config.registry.password }
          : undefined,
    });
    const avro = await AvroCodec.create({ registry, schemas: loadSchemaFiles(defaultSchemaDir()), logger });

    const catalog = await startCatalog({
      kafka,
      admin: connectedAdmin,
      avro,
      topic: topics.catalog,
      clientId: config.kafka.clientId,
      logger,
      clock,
      metrics,
      ackTimeoutMs: config.kafka.ackTimeoutMs,
    });
    lifecycle.onStop('catalog', () => catalog.stop());
    readiness.push({ name: 'catalog', check: async () => catalog.ready() });
    registerAdminRoutes({
      router,
      service: catalog.service,
      store: catalog.store,
      adminToken: config.adminToken,
      logger,
    });

    const context: AppContext = {
      config,
      logger,
      clock,
      metrics,
      kafka,
      admin: connectedAdmin,
      registry,
      avro,
      events: new EventCodec(avro),
      catalog: catalog.store,
      catalogService: catalog.service,
      topics,
      router,
    };

    const roles = await startRoles(context, lifecycle);

    started = true;
    logger.info({ port: httpPort, roles: config.roles }, 'hookline started');

    return { context, roles, httpPort, stop: () => lifecycle.stop() };
  } catch (err) {
    await lifecycle.stop();
    throw err;
  }
}

async function registryAnswers(baseUrl: string, auth: Config['registry']): Promise<boolean> {
  const headers: Record<string, string> = {};
  if (auth.username && auth.password) {
    headers.authorization = `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`;
  }
  const res = await fetch(`${baseUrl.replace(/\/$/, '')}/subjects`, {
    headers,
    signal: AbortSignal.timeout(2_000),
  });
  return res.ok;
}
