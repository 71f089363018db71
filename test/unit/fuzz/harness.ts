import type { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { Registry } from 'prom-client';
import { mountAdminApi } from '../../../src/admin-api';
import { AvroCodec } from '../../../src/avro/codec';
import { defaultSchemaDir, loadSchemaFiles } from '../../../src/avro/schema-files';
import { CatalogService, CatalogStore, catalogHttpError } from '../../../src/catalog';
import { catalogRoutes } from '../../../src/catalog/api/routes';
import { createHttpServer, type HttpServer } from '../../../src/http/server';
import { Router } from '../../../src/http/router';
import { IngestAdmission } from '../../../src/ingest/admission';
import { createIngestMetrics } from '../../../src/ingest/metrics';
import { EventPublisher } from '../../../src/ingest/publisher';
import { registerTrackingRoutes } from '../../../src/ingest/routes';
import type { OutgoingMessage } from '../../../src/kafka/batching-producer';
import { silentLogger } from '../../../src/observability/logger';
import type { CatalogEntity } from '../../../src/records/catalog';
import { EventCodec } from '../../../src/records/event';
import { SecretKeyring } from '../../../src/security/secrets';

export const ADMIN_TOKEN = 'fuzz-admin-token';

/** fast-check runs: FUZZ_RUNS for a longer run (docs: docs/development.md), a fixed seed in CI. */
export const FUZZ = {
  numRuns: Number(process.env.FUZZ_RUNS ?? 150),
  seed: Number(process.env.FUZZ_SEED ?? 20261123),
};

/**
 * The tracking API and the catalog's admin API in-process over real HTTP on 127.0.0.1:0, with the
 * real handlers, validation, normalisation and Avro encoding. Only the edges are replaced: the
 * schema registry hands out ids, Kafka is a list of the messages produced, and catalog writes are
 * applied to the store at once.
 */
export async function startFuzzTarget(): Promise<{
  baseUrl: string;
  /** The write key of the one source. */
  writeKey: string;
  produced: OutgoingMessage[];
  events: EventCodec;
  /** Decodes the other records produced (the ingest DLQ's). */
  avro: AvroCodec;
  /** The tracking API's metrics. */
  ingestMetrics: Registry;
  close(): Promise<void>;
}> {
  let nextId = 1;
  const registry = { register: async () => ({ id: nextId++ }) } as unknown as SchemaRegistry;
  const avro = await AvroCodec.create({
    registry,
    schemas: loadSchemaFiles(defaultSchemaDir()),
    logger: silentLogger(),
  });
  const events = new EventCodec(avro);
  const produced: OutgoingMessage[] = [];
  const producer = { send: async (messages: OutgoingMessage[]) => void produced.push(...messages) };

  const logger = silentLogger();
  const store = new CatalogStore({ logger });
  store.expect([]);
  let offset = 0;
  const apply = (id: string, entity: CatalogEntity | undefined) =>
    store.apply({ partition: 0, offset: String(offset++) }, id, entity);
  const writer = {
    put: async (entity: CatalogEntity) => apply(entity.value.id, entity),
    remove: async (id: string) => apply(id, undefined),
  };
  const sealer = new SecretKeyring({ current: Buffer.alloc(32, 7) });
  const service = new CatalogService({ store, writer, sealer, logger });
  const { writeKey } = await service.createSource({ name: 'fuzz', enabled: true });

  const router = new Router();
  const ingestMetrics = new Registry();
  registerTrackingRoutes({
    router,
    catalog: store,
    publisher: new EventPublisher({
      producer: producer as never,
      events,
      avro,
      eventsTopic: 'fuzz.events',
      ingestDlqTopic: 'fuzz.ingest-dlq',
    }),
    admission: new IngestAdmission({ limits: { concurrency: 64, queue: 1_000, queueTimeoutMs: 500 } }),
    metrics: createIngestMetrics(ingestMetrics),
    clock: { now: () => Date.now() },
    logger,
  });
  mountAdminApi({
    router,
    adminToken: ADMIN_TOKEN,
    groups: [{ routes: catalogRoutes({ service, store }), mapError: catalogHttpError }],
    logger,
  });
  const server: HttpServer = createHttpServer({
    host: '127.0.0.1',
    port: 0,
    router,
    metrics: new Registry(),
    readiness: [],
    logger,
  });
  const baseUrl = `http://127.0.0.1:${await server.listen()}`;
  return { baseUrl, writeKey, produced, events, avro, ingestMetrics, close: () => server.close() };
}
