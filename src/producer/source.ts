import type { Admin, Kafka } from 'kafkajs';
import type { AvroCodec } from '../avro/codec';
import { withDeadline } from '../core/deadline';
import { CatalogLagError, CatalogStore, startMaterialiser, type Materialiser } from '../catalog/reader';
import type { Source } from '../records/catalog-model';
import { CatalogRecordCodec } from '../records/catalog';
import type { Clock } from '../core/clock';
import type { Logger } from '../observability/logger';
import { InvalidWriteKeyError, SourceDisabledError } from './errors';

export interface SourceFollowerOptions {
  kafka: Kafka;
  admin: Admin;
  avro: AvroCodec;
  /** `<prefix>.catalog`. */
  topic: string;
  clientId: string;
  writeKey: string;
  logger: Logger;
  clock: Clock;
  catchUpTimeoutMs: number;
}

/** The write key's source, as the catalog says now. */
export interface SourceFollower {
  sourceId: string;
  /** Throws as the tracking API would refuse the key now: source deleted, or disabled. */
  assertAccepting(): void;
  stop(): Promise<void>;
}

/**
 * The library's view of the catalog: sources only. Destination records are recognised by their
 * schema and read past undecoded, so a producing process never holds destination settings
 * (secrets and header values, sealed or not) and needs no secrets key.
 */
export async function followSourcesOnly(
  options: Omit<SourceFollowerOptions, 'writeKey' | 'catchUpTimeoutMs'>,
): Promise<{ store: CatalogStore; materialiser: Materialiser }> {
  const { kafka, admin, avro, topic, clientId, logger, clock } = options;
  const store = new CatalogStore({ logger, clock });
  const codec = new CatalogRecordCodec(avro, { sourcesOnly: true });
  const materialiser = await startMaterialiser({ kafka, admin, topic, clientId, codec, store, logger });
  return { store, materialiser };
}

/**
 * Reads the catalog topic's sources (as every Hookline process does, with a read-only
 * materialiser: no writer) until caught up, finds the write key's source, and keeps following
 * the topic so that a source disabled or deleted later stops being accepted, as at the tracking API.
 */
export async function followSource(options: SourceFollowerOptions): Promise<SourceFollower> {
  const { topic, writeKey, catchUpTimeoutMs } = options;
  const { store, materialiser } = await followSourcesOnly(options);
  let source: Source;
  try {
    await withDeadline(
      store.whenReady(),
      catchUpTimeoutMs,
      () => new CatalogLagError(`the catalog topic ${topic} was not read within ${catchUpTimeoutMs} ms`),
    );
    source = acceptingSource(store.sourceByWriteKey(writeKey));
  } catch (err) {
    await materialiser.stop();
    throw err;
  }
  const { id, writeKeyHash } = source;
  return {
    sourceId: id,
    assertAccepting: () => {
      const now = store.source(id);
      acceptingSource(now?.writeKeyHash === writeKeyHash ? now : undefined);
    },
    stop: () => materialiser.stop(),
  };
}

/** The source if the tracking API would accept its key: it exists and is enabled. */
export function acceptingSource(source: Source | undefined): Source {
  if (!source) throw new InvalidWriteKeyError();
  if (!source.enabled) throw new SourceDisabledError(source.id);
  return source;
}
