import type { AvroCodec } from '../avro/codec';
import { UndecodableRecordError } from '../core/errors';
import type { Destination, Source, WebhookEntry } from './catalog-model';
import { audienceEntityFromRecord, audienceEntityToRecord, type AudienceEntity } from './catalog-audiences';

/**
 * Maps catalog entities to and from their Avro records (schemas/catalog-*.avsc, namespace
 * io.hookline.catalog). Representation choices:
 *  - timestamps: `long` with logicalType timestamp-millis; ISO 8601 UTC strings in memory;
 *  - headers: `map<string>`; webhooks: an array of records; absent secret: Avro null;
 *  - secrets and header values as the catalog stores them (sealed envelopes, src/security/secrets.ts):
 *    this codec neither seals nor opens;
 *  - the previous Standard Webhooks secret and its rotation time: two nullable fields, set together.
 * On the catalog topic the record key is the entity id and a tombstone (null value) deletes it.
 */
export const CATALOG_NAMESPACE = 'io.hookline.catalog';
export const SOURCE_RECORD = `${CATALOG_NAMESPACE}.Source`;
export const DESTINATION_RECORD = `${CATALOG_NAMESPACE}.Destination`;

export type CatalogEntity =
  { kind: 'source'; value: Source } | { kind: 'destination'; value: Destination } | AudienceEntity;

type AvroRecord = Record<string, unknown>;

export function sourceToRecord(source: Source): AvroRecord {
  return {
    ...withoutVersion(source),
    writeKeyPrefix: source.writeKeyPrefix ?? '',
    ...timestampsToRecord(source),
  };
}

export function sourceFromRecord(record: AvroRecord): Source {
  const source: Source = {
    id: record.id as string,
    name: record.name as string,
    enabled: record.enabled as boolean,
    writeKeyHash: record.writeKeyHash as string,
    ...timestampsFromRecord(record),
  };
  const prefix = record.writeKeyPrefix as string | undefined;
  return prefix ? { ...source, writeKeyPrefix: prefix } : source;
}

export function destinationToRecord(destination: Destination): AvroRecord {
  const { sharedSecret, standardWebhooksSecret, standardWebhooksPrevious, webhooks, maxRequestsPerSecond } =
    destination.settings;
  return {
    ...withoutVersion(destination),
    settings: {
      sharedSecret: sharedSecret ?? null,
      maxRequestsPerSecond: maxRequestsPerSecond ?? null,
      standardWebhooksSecret: standardWebhooksSecret ?? null,
      standardWebhooksPreviousSecret: standardWebhooksPrevious?.secret ?? null,
      standardWebhooksRotatedAt: standardWebhooksPrevious
        ? Date.parse(standardWebhooksPrevious.rotatedAt)
        : null,
      webhooks: webhooks.map((w) => ({
        url: w.url,
        headers: w.headers,
        disabledAt: w.disabled ? Date.parse(w.disabled.at) : null,
        disabledReason: w.disabled?.reason ?? null,
      })),
    },
    ...timestampsToRecord(destination),
  };
}

export function destinationFromRecord(record: AvroRecord): Destination {
  const settings = record.settings as {
    sharedSecret: string | null;
    standardWebhooksSecret: string | null;
    standardWebhooksPreviousSecret: string | null;
    standardWebhooksRotatedAt: number | null;
    webhooks: AvroRecord[];
    maxRequestsPerSecond?: number | null;
  };
  const webhooks: WebhookEntry[] = settings.webhooks.map((w) => ({
    url: w.url as string,
    headers: { ...(w.headers as Record<string, string>) },
    ...(typeof w.disabledAt === 'number' && {
      disabled: {
        at: new Date(w.disabledAt).toISOString(),
        reason: (w.disabledReason as string | null) ?? 'disabled',
      },
    }),
  }));
  return {
    id: record.id as string,
    sourceId: record.sourceId as string,
    name: record.name as string,
    enabled: record.enabled as boolean,
    settings: {
      ...(settings.sharedSecret !== null && { sharedSecret: settings.sharedSecret }),
      ...(settings.standardWebhooksSecret !== null && {
        standardWebhooksSecret: settings.standardWebhooksSecret,
      }),
      ...(settings.standardWebhooksPreviousSecret !== null &&
        settings.standardWebhooksRotatedAt !== null && {
          standardWebhooksPrevious: {
            secret: settings.standardWebhooksPreviousSecret,
            rotatedAt: new Date(settings.standardWebhooksRotatedAt).toISOString(),
          },
        }),
      webhooks,
      ...(typeof settings.maxRequestsPerSecond === 'number' && {
        maxRequestsPerSecond: settings.maxRequestsPerSecond,
      }),
    },
    ...timestampsFromRecord(record),
  };
}

/** Entity → record name and Avro value. */
export function entityToRecord(entity: CatalogEntity): { name: string; value: AvroRecord } {
  if (entity.kind === 'audience' || entity.kind === 'computed_trait') return audienceEntityToRecord(entity);
  return entity.kind === 'source'
    ? { name: SOURCE_RECORD, value: sourceToRecord(entity.value) }
    : { name: DESTINATION_RECORD, value: destinationToRecord(entity.value) };
}

/** Record name and Avro value → entity. Throws UndecodableRecordError for a non-catalog record. */
export function entityFromRecord(name: string, value: AvroRecord): CatalogEntity {
  if (name === SOURCE_RECORD) return { kind: 'source', value: sourceFromRecord(value) };
  if (name === DESTINATION_RECORD) return { kind: 'destination', value: destinationFromRecord(value) };
  const audienceEntity = audienceEntityFromRecord(name, value);
  if (audienceEntity) return audienceEntity;
  throw new UndecodableRecordError(`${name} is not a catalog record`);
}

/** The version travels in a record header (src/catalog/versions.ts), not in the Avro value. */
function withoutVersion<T extends { version?: number }>(entity: T): Omit<T, 'version'> {
  const copy = { ...entity };
  delete copy.version;
  return copy;
}

function timestampsToRecord(entity: { createdAt: string; updatedAt: string }): AvroRecord {
  return { createdAt: Date.parse(entity.createdAt), updatedAt: Date.parse(entity.updatedAt) };
}

function timestampsFromRecord(record: AvroRecord): { createdAt: string; updatedAt: string } {
  return {
    createdAt: new Date(record.createdAt as number).toISOString(),
    updatedAt: new Date(record.updatedAt as number).toISOString(),
  };
}

export interface CatalogRecordCodecOptions {
  /**
   * Decode sources only: a destination record is recognised by its writer schema and passed over
   * without decoding its body, so the reader never holds destination settings, sealed or not.
   * For the producer library, which needs write keys only.
   */
  sourcesOnly?: boolean;
}

/** Encodes and decodes catalog topic values with an AvroCodec that knows the catalog schemas. */
export class CatalogRecordCodec {
  constructor(
    private readonly avro: AvroCodec,
    private readonly options: CatalogRecordCodecOptions = {},
  ) {}

  encode(entity: CatalogEntity): Buffer {
    const { name, value } = entityToRecord(entity);
    return this.avro.encode(name, value);
  }

  /** The entity; undefined for a record this view leaves out (`sourcesOnly`: destinations). */
  async decode(bytes: Buffer): Promise<CatalogEntity | undefined> {
    if (this.options.sourcesOnly && (await this.avro.recordName(bytes)) !== SOURCE_RECORD) return undefined;
    const { name, value } = await this.avro.decode(bytes);
    return entityFromRecord(name, value);
  }
}
