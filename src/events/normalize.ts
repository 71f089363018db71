import { MAX_EVENT_DEPTH, jsonDepth } from './depth';
import { isJsonObject, isLosslessNumber, objectByteLength, type JsonObject, type JsonValue } from './json';
import { TRACKING_TYPES, type TrackingEvent, type TrackingType } from './types';
import type { Rejection, RejectionCode } from './rejection';
import { correctedTimestampMs, isoTimestamp, parseClientTimestamp } from './timestamps';

/** Per-event limit, as Segment's: 32 KB of JSON. */
export const MAX_EVENT_BYTES = 32 * 1024;
/** Segment's request limit: 500 KB (a batch, after gunzip). */
export const MAX_REQUEST_BYTES = 500 * 1024;

/** Request-level values that apply to every event of a batch. */
export interface BatchDefaults {
  context?: JsonObject;
  integrations?: JsonObject;
  /** The batch's sentAt, raw; ignored when it is not a timestamp. */
  sentAt?: JsonValue;
}

export interface NormalizeOptions {
  sourceId: string;
  receivedAtMs: number;
  /** The call type from the path (`/v1/track`), or undefined for batch items (read from `type`). */
  pathType: TrackingType | undefined;
  defaults: BatchDefaults;
  newMessageId: () => string;
  /**
   * The event came from the native JSON.parse (`parseJsonText`'s `plain`): nothing in it needs
   * the lossless serialiser. Default false.
   */
  plainJson?: boolean;
  /**
   * With `plainJson`: the JSON text of the event's object and array fields as the client wrote it
   * (`scanJson`), kept instead of serialising them again.
   */
  sourceTexts?: ReadonlyMap<string, string>;
  /**
   * How deep the event nests objects and arrays, when already known (`scanJson`); otherwise it is
   * measured. Over MAX_EVENT_DEPTH the event is refused before anything else reads it.
   */
  depth?: number;
}

/**
 * What normalising computed anyway that the event's Avro record holds (records/event.ts): its
 * timestamps as epoch ms and its free-form objects as JSON text, by field name. `EventCodec.encode`
 * takes them instead of computing them again; they describe the event they came with, and only it.
 */
export type PrecomputedFields = Partial<Record<string, number | string>>;

export type NormalizeResult =
  { ok: true; event: TrackingEvent; precomputed: PrecomputedFields } | { ok: false; rejection: Rejection };

class Reject extends Error {
  constructor(
    readonly code: RejectionCode,
    reason: string,
  ) {
    super(reason);
  }
}

/**
 * Turns one event as a client sent it into Hookline's event, or says why it is refused. Pure:
 * time and ids come from the options.
 */
export function normalizeEvent(raw: JsonValue, options: NormalizeOptions): NormalizeResult {
  try {
    const precomputed: PrecomputedFields = {};
    return { ok: true, event: normalizeOrThrow(raw, options, precomputed), precomputed };
  } catch (err) {
    if (err instanceof Reject) return { ok: false, rejection: { code: err.code, reason: err.message } };
    throw err;
  }
}

function normalizeOrThrow(
  raw: JsonValue,
  options: NormalizeOptions,
  precomputed: PrecomputedFields,
): TrackingEvent {
  // First: every other step (serialising, measuring) recurses into the value.
  if ((options.depth ?? jsonDepth(raw, MAX_EVENT_DEPTH)) > MAX_EVENT_DEPTH) {
    throw new Reject('too_deep', `event nests objects and arrays more than ${MAX_EVENT_DEPTH} levels deep`);
  }
  if (!isJsonObject(raw)) throw new Reject('not_an_object', 'event must be a JSON object');
  const type = options.pathType ?? readType(raw.type);

  // Measured field by field: the free-form objects' JSON text is kept for the Avro record.
  const texts: Record<string, string> = {};
  const plain = options.plainJson === true;
  const bytes = objectByteLength(raw, texts, plain, plain ? options.sourceTexts : undefined);
  if (bytes > MAX_EVENT_BYTES) {
    throw new Reject('event_too_large', `event is ${bytes} bytes; the limit is ${MAX_EVENT_BYTES} bytes`);
  }

  const userId = optionalId(raw, 'userId');
  const anonymousId = optionalId(raw, 'anonymousId');
  if (userId === undefined && anonymousId === undefined) {
    throw new Reject('missing_identity', 'event needs a userId or an anonymousId');
  }

  const original = optionalTimestamp(raw, 'timestamp') ?? optionalTimestamp(raw, 'originalTimestamp');
  // sentAt serves clock-skew correction only: one that is not a timestamp (the event's or the
  // batch's) is left out, and the event kept, rather than every event of the batch refused.
  const sentAt = skewTimestamp(raw.sentAt) ?? skewTimestamp(options.defaults.sentAt);
  const timestampMs = correctedTimestampMs({
    receivedAtMs: options.receivedAtMs,
    sentAtMs: sentAt?.ms,
    originalTimestampMs: original?.ms,
  });
  const receivedAt = isoTimestamp(options.receivedAtMs);

  const ownContext = optionalObject(raw, 'context');
  const ownIntegrations = optionalObject(raw, 'integrations');
  const context = merge(options.defaults.context, ownContext);
  const integrations = merge(options.defaults.integrations, ownIntegrations);

  precomputed.timestamp = timestampMs;
  precomputed.receivedAt = options.receivedAtMs;
  if (original) precomputed.originalTimestamp = original.ms;
  if (sentAt) precomputed.sentAt = sentAt.ms;
  // A merged object is new: its text is not the client's.
  if (context && context === ownContext) precomputed.context = texts.context;
  if (integrations && integrations === ownIntegrations) precomputed.integrations = texts.integrations;
  if (texts.properties !== undefined) precomputed.properties = texts.properties;
  if (texts.traits !== undefined) precomputed.traits = texts.traits;

  // Built field by field, in the order the spread version had (no temporary objects per event).
  const event: Record<string, unknown> = {
    messageId: optionalId(raw, 'messageId') ?? options.newMessageId(),
  };
  if (userId !== undefined) event.userId = userId;
  if (anonymousId !== undefined) event.anonymousId = anonymousId;
  event.timestamp =
    timestampMs === options.receivedAtMs
      ? receivedAt
      : timestampMs === original?.ms
        ? original.iso
        : isoTimestamp(timestampMs);
  if (original !== undefined) event.originalTimestamp = original.iso;
  if (sentAt !== undefined) event.sentAt = sentAt.iso;
  event.receivedAt = receivedAt;
  event.sourceId = options.sourceId;
  if (context) event.context = context;
  if (integrations) event.integrations = integrations;
  event.type = type;

  switch (type) {
    case 'identify':
      setIfDefined(event, 'traits', optionalObject(raw, 'traits'));
      break;
    case 'track': {
      const name = optionalString(raw, 'event');
      if (name === undefined) throw new Reject('missing_event', 'track needs an event name in "event"');
      event.event = name;
      setIfDefined(event, 'properties', optionalObject(raw, 'properties'));
      break;
    }
    case 'page':
    case 'screen':
      setIfDefined(event, 'name', optionalString(raw, 'name'));
      setIfDefined(event, 'category', optionalString(raw, 'category'));
      setIfDefined(event, 'properties', optionalObject(raw, 'properties'));
      break;
    case 'group': {
      const groupId = optionalId(raw, 'groupId');
      if (groupId === undefined) throw new Reject('missing_group_id', 'group needs a "groupId"');
      event.groupId = groupId;
      setIfDefined(event, 'traits', optionalObject(raw, 'traits'));
      break;
    }
    case 'alias': {
      const previousId = optionalId(raw, 'previousId');
      if (previousId === undefined) throw new Reject('missing_previous_id', 'alias needs a "previousId"');
      if (userId === undefined) throw new Reject('missing_user_id', 'alias needs a "userId"');
      event.previousId = previousId;
      break;
    }
  }
  return event as unknown as TrackingEvent;
}

function readType(value: JsonValue | undefined): TrackingType {
  if (typeof value === 'string' && (TRACKING_TYPES as readonly string[]).includes(value))
    return value as TrackingType;
  throw new Reject('unknown_type', `"type" must be one of ${TRACKING_TYPES.join(', ')}`);
}

/** Ids may arrive as strings or numbers; numbers keep their exact text. Empty means absent. */
function optionalId(raw: JsonObject, key: string): string | undefined {
  const value = raw[key];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || isLosslessNumber(value)) return String(value);
  throw new Reject('invalid_field', `"${key}" must be a string`);
}

function optionalString(raw: JsonObject, key: string): string | undefined {
  const value = raw[key];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'string') return value;
  throw new Reject('invalid_field', `"${key}" must be a string`);
}

function optionalObject(raw: JsonObject, key: string): JsonObject | undefined {
  const value = raw[key];
  if (value === undefined || value === null) return undefined;
  if (isJsonObject(value)) return value;
  throw new Reject('invalid_field', `"${key}" must be an object`);
}

/** A client's timestamp: epoch ms, and as Hookline writes it (ISO 8601 UTC with milliseconds). */
interface ClientTime {
  ms: number;
  iso: string;
}

function optionalTimestamp(raw: JsonObject, key: string): ClientTime | undefined {
  return timestampValue(key, raw[key]);
}

function timestampValue(key: string, value: JsonValue | undefined): ClientTime | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const ms = typeof value === 'string' ? parseClientTimestamp(value) : undefined;
  if (ms === undefined) {
    throw new Reject(
      'invalid_timestamp',
      `"${key}" is not an ISO 8601 timestamp: ${JSON.stringify(String(value)).slice(0, 80)}`,
    );
  }
  return { ms, iso: isoTimestamp(ms, value as string) };
}

/** `timestampValue` for sentAt: undefined when it is absent or not a timestamp. */
function skewTimestamp(value: JsonValue | undefined): ClientTime | undefined {
  const ms = typeof value === 'string' ? parseClientTimestamp(value) : undefined;
  return ms === undefined ? undefined : { ms, iso: isoTimestamp(ms, value as string) };
}

function setIfDefined(event: Record<string, unknown>, key: string, value: unknown): void {
  if (value !== undefined) event[key] = value;
}

/** Shallow merge: the event's own keys win over the batch's. */
function merge(batch: JsonObject | undefined, own: JsonObject | undefined): JsonObject | undefined {
  if (!batch) return own;
  if (!own) return batch;
  return { ...batch, ...own };
}
