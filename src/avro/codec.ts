import { COMPATIBILITY, SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import * as avro from 'avsc';
import {
  RegistryUnavailableError,
  UndecodableRecordError,
  UnencodableRecordError,
  errorMessage,
} from '../core/errors';
import { backoffDelayMs, sleep } from '../core/backoff';
import type { Logger } from '../observability/logger';
import type { SchemaFile } from './schema-files';
import { FrameWriter, unframe } from './wire';

export interface DecodedRecord {
  /** Full record name of the reader schema the value now has. */
  name: string;
  value: Record<string, unknown>;
  writerSchemaId: number;
}

/** Tries of a registration refused for a compatibility level another process is setting (see register()). */
const FIRST_REGISTRATION_ATTEMPTS = 5;

interface ReaderEntry {
  fullName: string;
  type: avro.Type;
  /** Resolver from the writer's schema, or undefined when writer = reader. */
  resolver: avro.Resolver | undefined;
}

export interface AvroCodecOptions {
  registry: SchemaRegistry;
  /** The reader schemas: today's shape of every record this process reads or writes. */
  schemas: SchemaFile[];
  logger: Logger;
}

/**
 * Encodes and decodes records in the Confluent wire format. At start it registers its schemas
 * (subject = full record name, idempotent). Decoding looks up the writer's schema by id and
 * resolves it into today's reader schema, so records written by older or newer compatible
 * versions decode into the current shape.
 */
export class AvroCodec {
  private readonly byName = new Map<string, { id: number; type: avro.Type }>();
  private readonly byWriterId = new Map<number, Promise<ReaderEntry>>();
  private readonly writerNames = new Map<number, Promise<string>>();
  private readonly scratch = new FrameWriter();

  private constructor(private readonly options: AvroCodecOptions) {}

  static async create(options: AvroCodecOptions): Promise<AvroCodec> {
    const codec = new AvroCodec(options);
    await codec.registerAll();
    return codec;
  }

  private async registerAll(): Promise<void> {
    const { schemas, logger } = this.options;
    for (const schema of schemas) {
      const id = await this.register(schema);
      this.byName.set(schema.fullName, { id, type: schema.type });
      this.byWriterId.set(
        id,
        Promise.resolve({ fullName: schema.fullName, type: schema.type, resolver: undefined }),
      );
      this.writerNames.set(id, Promise.resolve(schema.fullName));
      logger.debug({ subject: schema.fullName, schemaId: id }, 'schema registered');
    }
  }

  /**
   * Registers one schema under its subject, BACKWARD-compatible. The registry client reads the
   * subject's level, registers, and only then sets BACKWARD on a subject it created: a second
   * process starting at the same moment on a fresh registry (replicas of one deployment) sees the
   * new subject with the registry's default level in between, and the client refuses; or both see
   * no subject, both set the level, and the registry answers the second with 409 Conflict. The
   * other process is about to set (or has set) the level, so those refusals are tried again a few
   * times before they count.
   */
  private async register(schema: SchemaFile): Promise<number> {
    const { registry } = this.options;
    for (let attempt = 1; ; attempt++) {
      try {
        const { id } = await registry.register(
          { type: SchemaType.AVRO, schema: schema.text },
          // Set on a subject's first registration and checked on every later one: a new schema
          // version must read every older record (schemas/README.md, Evolution).
          { subject: schema.fullName, compatibility: COMPATIBILITY.BACKWARD },
        );
        return id;
      } catch (err) {
        if (!isRegistrationRace(err) || attempt >= FIRST_REGISTRATION_ATTEMPTS)
          throw toRegistryError(err, `registering ${schema.fullName}`);
        await sleep(backoffDelayMs(attempt));
      }
    }
  }

  schemaId(fullName: string): number {
    const entry = this.byName.get(fullName);
    if (!entry) throw new UnencodableRecordError(`no schema named ${fullName}`);
    return entry.id;
  }

  encode(fullName: string, value: Record<string, unknown>): Buffer {
    const entry = this.byName.get(fullName);
    if (!entry) throw new UnencodableRecordError(`no schema named ${fullName}`);
    try {
      return this.scratch.encode(entry.id, entry.type, value);
    } catch (err) {
      throw new UnencodableRecordError(
        `${fullName}: ${describeInvalid(entry.type, value) ?? errorMessage(err)}`,
      );
    }
  }

  async decode(bytes: Buffer): Promise<DecodedRecord> {
    const { schemaId, body } = unframe(bytes);
    const reader = await this.readerFor(schemaId);
    try {
      const value = reader.type.fromBuffer(body, reader.resolver) as Record<string, unknown>;
      return { name: reader.fullName, value, writerSchemaId: schemaId };
    } catch (err) {
      throw new UndecodableRecordError(
        `corrupt ${reader.fullName} record (schema id ${schemaId}): ${errorMessage(err)}`,
      );
    }
  }

  /**
   * The full name of the schema a record was written with, from its schema id alone: the body is
   * not decoded, and the name need not be one of this codec's schemas. Lets a reader pass over
   * records it must not hold (the producer library and destination records).
   */
  async recordName(bytes: Buffer): Promise<string> {
    const { schemaId } = unframe(bytes);
    let name = this.writerNames.get(schemaId);
    if (!name) {
      name = this.fetchWriter(schemaId).then((writer) => {
        if (!writer.name) throw new UndecodableRecordError(`schema id ${schemaId} is unnamed`);
        return writer.name;
      });
      this.writerNames.set(schemaId, name);
      name.catch(() => this.writerNames.delete(schemaId));
    }
    return name;
  }

  private readerFor(schemaId: number): Promise<ReaderEntry> {
    let entry = this.byWriterId.get(schemaId);
    if (!entry) {
      entry = this.loadWriter(schemaId);
      this.byWriterId.set(schemaId, entry);
      // A transient failure must not be cached; a permanent one (unknown id) may be retried too.
      entry.catch(() => this.byWriterId.delete(schemaId));
    }
    return entry;
  }

  private async fetchWriter(schemaId: number): Promise<avro.Type> {
    try {
      return (await this.options.registry.getSchema(schemaId)) as unknown as avro.Type;
    } catch (err) {
      throw toSchemaFetchError(err, schemaId);
    }
  }

  private async loadWriter(schemaId: number): Promise<ReaderEntry> {
    const writer = await this.fetchWriter(schemaId);
    const fullName = writer.name;
    const reader = fullName ? this.byName.get(fullName) : undefined;
    if (!fullName || !reader) {
      throw new UndecodableRecordError(
        `schema id ${schemaId} is ${fullName ?? 'unnamed'}, which this process cannot read`,
      );
    }
    try {
      return { fullName, type: reader.type, resolver: reader.type.createResolver(writer) };
    } catch (err) {
      throw new UndecodableRecordError(
        `schema id ${schemaId} (${fullName}) is not compatible with today's schema: ${errorMessage(err)}`,
      );
    }
  }
}

function describeInvalid(type: avro.Type, value: unknown): string | undefined {
  const paths: string[] = [];
  type.isValid(value, { errorHook: (path) => paths.push(path.join('.') || '(root)') });
  return paths.length > 0 ? `invalid field(s): ${paths.join(', ')}` : undefined;
}

/** See register(). The client's error class is not exported; its name is the only handle on it. */
function isRegistrationRace(err: unknown): boolean {
  if (err instanceof Error && err.name === 'ConfluentSchemaRegistryCompatibilityError') return true;
  return typeof err === 'object' && err !== null && 'status' in err && Number(err.status) === 409;
}

/**
 * A failed fetch of a writer's schema: only "no such schema id" (404) says the record cannot be
 * read. Any other refusal (401 or 403 after a credential rotation, a proxy's 4xx) is the
 * registry's or its access's, not the record's, and passes: taken for undecodable, every record
 * read meanwhile was dead-lettered instead of waiting for it.
 */
function toSchemaFetchError(err: unknown, schemaId: number): Error {
  if (statusOf(err) === 404)
    return new UndecodableRecordError(`schema registry has no schema id ${schemaId}: ${errorMessage(err)}`);
  return new RegistryUnavailableError(
    `schema registry unavailable while fetching schema id ${schemaId}: ${errorMessage(err)}`,
    { cause: err },
  );
}

function statusOf(err: unknown): number | undefined {
  return typeof err === 'object' && err !== null && 'status' in err ? Number(err.status) : undefined;
}

/** Registration errors: a 4xx answer (an incompatible schema, say) is permanent, anything else transient. */
function toRegistryError(err: unknown, what: string): Error {
  const status = statusOf(err);
  if (status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 429) {
    return new UndecodableRecordError(
      `schema registry refused ${what} (HTTP ${status}): ${errorMessage(err)}`,
    );
  }
  return new RegistryUnavailableError(`schema registry unavailable while ${what}: ${errorMessage(err)}`, {
    cause: err,
  });
}
