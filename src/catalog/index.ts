import type { Admin, Kafka } from 'kafkajs';
import type { Registry } from 'prom-client';
import type { AvroCodec } from '../avro/codec';
import type { Clock } from '../core/clock';
import type { Logger } from '../observability/logger';
import type { AddressPolicy } from '../security/address-policy';
import type { SecretOpener, SecretSealer } from '../security/secrets';
import { withDeadline } from '../core/deadline';
import { CatalogLagError } from './errors';
import { startMaterialiser, type Materialiser } from './materialiser';
import { CatalogRecordCodec } from '../records/catalog';
import { CatalogService } from './service';
import { AudienceCatalogService } from './audience-service';
import { CatalogStore } from './store';
import { registerCatalogStoreMetrics } from './store-metrics';
import { CatalogWriter } from './writer';

import type { AdminRoute } from '../http/admin';
import { catalogRoutes } from './api/routes';
import { toHttpError } from './api/errors';
import type { CircuitReader } from './api/views';

// The catalog's public surface: other stages import the catalog through this file only (or, to
// follow the catalog and no more, through reader.ts).
export * from './reader';
export { CatalogService } from './service';
export type { ReencryptResult } from './reencrypt';
export { AudienceCatalogService } from './audience-service';
export type { AudienceCatalogReads } from './store';
export type { Audience, ComputedTrait } from '../records/catalog-audiences';
export { toHttpError as catalogHttpError } from './api/errors';
export type { CircuitReader } from './api/views';

export interface CatalogOptions {
  kafka: Kafka;
  admin: Admin;
  avro: AvroCodec;
  /** The catalog topic, `<prefix>.catalog`. */
  topic: string;
  /** Base of this process's consumer group id. */
  clientId: string;
  /** Seals destination secrets and header values before they are written (the secrets keyring). */
  sealer: SecretSealer & SecretOpener;
  logger: Logger;
  clock: Clock;
  metrics?: Registry;
  /** Refuses webhook URLs naming blocked IP addresses (the SSRF guard). Default: strict, no exceptions. */
  addressPolicy?: AddressPolicy;
  /** How long a catalog write may wait for acks=all. Default 10 s. */
  ackTimeoutMs?: number;
  /** How long a write then waits to be applied locally (read-your-writes). Default 5 s. */
  applyTimeoutMs?: number;
  /** How long start-up may take to replay the topic before failing. Default 2 min. */
  catchUpTimeoutMs?: number;
}

export interface Catalog {
  store: CatalogStore;
  service: CatalogService;
  /** Writes audience and computed-trait definitions (the audiences stage's admin API uses it). */
  audiences: AudienceCatalogService;
  /** The catalog's part of the admin API (sources, destinations), and how its errors map to HTTP. */
  routes(options?: { circuits?: CircuitReader }): AdminRoute[];
  mapError: (err: unknown) => unknown;
  /** Caught up at start and still following the topic: the process's readiness check. */
  ready(): boolean;
  /** Stops following the topic and closes the producer. */
  stop(): Promise<void>;
}

/**
 * Starts the catalog of this process: a store materialised from the catalog topic (replayed from
 * the beginning, then followed live) and the service that writes changes to it. Resolves once the
 * replay has caught up with the topic as it stood at start (`store.ready`); meanwhile the HTTP
 * server already answers /healthz, and /readyz with 503.
 */
export async function startCatalog(options: CatalogOptions): Promise<Catalog> {
  const { kafka, admin, topic, clientId, logger, clock } = options;
  const codec = new CatalogRecordCodec(options.avro);
  const store = new CatalogStore({ logger, clock });
  if (options.metrics) registerCatalogStoreMetrics(store, options.metrics);
  const writer = await CatalogWriter.start({
    kafka,
    topic,
    codec,
    applied: store,
    logger,
    ackTimeoutMs: options.ackTimeoutMs,
    applyTimeoutMs: options.applyTimeoutMs,
  });
  let materialiser: Materialiser | undefined;
  try {
    materialiser = await startMaterialiser({ kafka, admin, topic, clientId, codec, store, logger });
    const catchUpTimeoutMs = options.catchUpTimeoutMs ?? 120_000;
    await withDeadline(
      store.whenReady(),
      catchUpTimeoutMs,
      () => new CatalogLagError(`the catalog topic was not replayed within ${catchUpTimeoutMs} ms`),
    );
  } catch (err) {
    await materialiser?.stop();
    await writer.stop();
    throw err;
  }
  const service = new CatalogService({
    store,
    writer,
    sealer: options.sealer,
    logger,
    clock,
    addressPolicy: options.addressPolicy,
  });
  return {
    store,
    service,
    audiences: new AudienceCatalogService({ store, writer, logger, clock }),
    routes: (options) => catalogRoutes({ service, store, ...options }),
    mapError: toHttpError,
    ready: () => store.ready && materialiser.following(),
    stop: async () => {
      await materialiser.stop();
      await writer.stop();
    },
  };
}
