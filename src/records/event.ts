import type { AvroCodec } from '../avro/codec';
import { UndecodableRecordError } from '../core/errors';
import { isDateTime, isoFromMs } from '../core/iso-time';
import { isJsonObject, parseJson, stringifyJson, type JsonObject } from '../events/json';
import { isJsonObjectText } from '../events/json-validate';
import type { PrecomputedFields } from '../events/normalize';
import type { EventType, HooklineEvent } from '../events/types';

/**
 * Maps events to and from their Avro records (schemas/*.avsc, namespace io.hookline.events).
 * Representation choices, documented in schemas/README.md:
 *  - timestamps: `long` with logicalType timestamp-millis; ISO strings in memory;
 *  - free-form objects: `["null","string"]` holding lossless JSON text;
 *  - absent optional fields: Avro null.
 */
export const EVENT_NAMESPACE = 'io.hookline.events';

const RECORD_NAMES: Record<EventType, string> = {
  identify: `${EVENT_NAMESPACE}.Identify`,
  track: `${EVENT_NAMESPACE}.Track`,
  page: `${EVENT_NAMESPACE}.Page`,
  screen: `${EVENT_NAMESPACE}.Screen`,
  group: `${EVENT_NAMESPACE}.Group`,
  alias: `${EVENT_NAMESPACE}.Alias`,
  delete: `${EVENT_NAMESPACE}.Delete`,
};
const TYPE_BY_RECORD = new Map(Object.entries(RECORD_NAMES).map(([type, name]) => [name, type as EventType]));

const TIMESTAMP_FIELDS = new Set(['timestamp', 'originalTimestamp', 'sentAt', 'receivedAt']);
const JSON_FIELDS = new Set(['context', 'integrations', 'properties', 'traits']);

export function eventRecordName(type: EventType): string {
  return RECORD_NAMES[type];
}

/**
 * Domain event → Avro record value. `precomputed` (from normalizeEvent, for this very event)
 * saves parsing its timestamps and serialising its free-form objects again.
 */
export function toAvroRecord(event: HooklineEvent, precomputed?: PrecomputedFields): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const key in event) {
    const value = (event as unknown as Record<string, unknown>)[key];
    if (value === undefined) continue;
    const known = precomputed?.[key];
    if (known !== undefined) record[key] = known;
    else if (TIMESTAMP_FIELDS.has(key)) record[key] = Date.parse(value as string);
    else if (JSON_FIELDS.has(key)) record[key] = stringifyJson(value);
    else record[key] = value;
  }
  return record;
}

/** The JSON text of an event record's free-form objects, as the record holds it, by field name. */
export type FreeFormTexts = Partial<Record<'context' | 'integrations' | 'properties' | 'traits', string>>;

/**
 * Avro record value → domain event. Throws UndecodableRecordError on an invalid record. `texts`,
 * when given, receives the JSON text of each free-form object, and `context`, `properties` and
 * `traits` are then only checked to be JSON objects, not parsed onto the event: the caller carries
 * them as that text (see `EventCodec.decodeWithTexts`).
 */
export function fromAvroRecord(
  recordName: string,
  record: Record<string, unknown>,
  texts?: FreeFormTexts,
): HooklineEvent {
  const type = TYPE_BY_RECORD.get(recordName);
  if (!type) throw new UndecodableRecordError(`${recordName} is not an event record`);
  const event: Record<string, unknown> = {};
  // Object.keys, not Object.entries: no [key, value] array per field of every event read.
  for (const key of Object.keys(record)) {
    const value = record[key];
    if (value === null || value === undefined) continue;
    const kind = FIELD_KINDS.get(key);
    if (kind === undefined) event[key] = value;
    else if (kind === 'timestamp') event[key] = timestampText(recordName, key, value as number);
    else {
      const text = value as string;
      if (texts && TEXT_ONLY_FIELDS.has(key)) checkJsonField(recordName, key, text);
      else event[key] = parseJsonField(recordName, key, text);
      if (texts) texts[key as keyof FreeFormTexts] = text;
    }
  }
  event.type = type;
  return event as unknown as HooklineEvent;
}

/** The fields fromAvroRecord does more with than copy, in one look-up per field. */
const FIELD_KINDS = new Map<string, 'timestamp' | 'json'>([
  ...[...TIMESTAMP_FIELDS].map((key) => [key, 'timestamp'] as const),
  ...[...JSON_FIELDS].map((key) => [key, 'json'] as const),
]);

/**
 * A timestamp field's epoch ms as its ISO text. A long no Date can hold (beyond ±8.64e15 ms, which
 * no Hookline producer writes) makes the record undecodable: dead-lettered with that reason, where
 * toISOString's RangeError had its handler retried for ever.
 */
function timestampText(recordName: string, key: string, ms: number): string {
  if (!isDateTime(ms))
    throw new UndecodableRecordError(`${recordName}.${key} is not a valid timestamp: ${ms}`);
  return isoFromMs(ms);
}

/** The free-form objects a webhook payload carries as their record's text (serialisePayload). */
const TEXT_ONLY_FIELDS = new Set(['context', 'properties', 'traits']);

/**
 * `parseJsonField` without the parse, unless the text is invalid: then its error says why. Valid
 * is what JSON.parse accepts: a key written twice is too (the text goes to receivers as it is;
 * parseJson, lossless path included, takes its last value).
 */
function checkJsonField(recordName: string, key: string, text: string): void {
  if (isJsonObjectText(text)) return;
  parseJsonField(recordName, key, text);
  throw new UndecodableRecordError(`${recordName}.${key} is not a JSON object`);
}

function parseJsonField(recordName: string, key: string, text: string): JsonObject {
  let value: unknown;
  try {
    value = parseJson(text);
  } catch (err) {
    throw new UndecodableRecordError(`${recordName}.${key} is not valid JSON: ${(err as Error).message}`);
  }
  if (!isJsonObject(value)) throw new UndecodableRecordError(`${recordName}.${key} is not a JSON object`);
  return value;
}

/** Encodes and decodes events with an AvroCodec that knows the event schemas. */
export class EventCodec {
  constructor(private readonly avro: AvroCodec) {}

  /** `precomputed`: what normalizeEvent computed for this very event, if it came from there. */
  encode(event: HooklineEvent, precomputed?: PrecomputedFields): Buffer {
    return this.avro.encode(RECORD_NAMES[event.type], toAvroRecord(event, precomputed));
  }

  async decode(bytes: Buffer): Promise<HooklineEvent> {
    const { name, value } = await this.avro.decode(bytes);
    return fromAvroRecord(name, value);
  }

  /**
   * `decode` for a payload: the record's JSON text of each free-form object (see
   * `serialisePayload`), and an event without `context`, `properties` and `traits`, which are
   * only checked to be JSON objects. Parsing them only to print them again cost ~3% of the
   * delivery path's CPU.
   */
  async decodeWithTexts(bytes: Buffer): Promise<{ event: HooklineEvent; texts: FreeFormTexts }> {
    const { name, value } = await this.avro.decode(bytes);
    const texts: FreeFormTexts = {};
    return { event: fromAvroRecord(name, value, texts), texts };
  }
}
