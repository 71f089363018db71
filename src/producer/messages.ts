import type { JsonObject } from '../events/json';
import type { TrackingEvent, TrackingType } from '../events/types';
import { normalizeEvent, type PrecomputedFields } from '../events/normalize';
import { InvalidMessageError } from './errors';

/**
 * The typed calls of the library. Required fields are enforced by the compiler (and checked
 * again at run time, for JavaScript callers, by the tracking API's own normalisation).
 */

/** A free-form value: JSON, plus bigint (sent as an exact integer) and Date (sent as ISO 8601). */
export type FreeformValue =
  string | number | bigint | boolean | null | Date | readonly FreeformValue[] | FreeformObject;
/** Free-form object; keys whose value is `undefined` are left out, as JSON.stringify does. */
export type FreeformObject = { readonly [key: string]: FreeformValue | undefined };

/** Who the call is about: a userId, an anonymousId, or both. */
export type Identity = { userId: string; anonymousId?: string } | { userId?: string; anonymousId: string };

/**
 * Per-destination switches (case-sensitive names, boolean values): every destination is on by
 * default, `All: false` turns every one off unless its own key is true. Hookline's webhook
 * destinations answer to `Webhooks`.
 */
export type Integrations = {
  All?: boolean;
  Webhooks?: boolean | FreeformObject;
  [destination: string]: boolean | FreeformObject | undefined;
};

export interface CommonFields {
  /** Unique id of the call; a UUID is generated when absent. Receivers de-duplicate on it. */
  messageId?: string;
  /** When it happened (historical import); absent = when the call was made. */
  timestamp?: Date | string;
  /** Facts about the caller, not attributes of the user: ip, userAgent, locale, ... */
  context?: FreeformObject;
  integrations?: Integrations;
}

export type IdentifyMessage = Identity & CommonFields & { traits?: FreeformObject };
export type TrackMessage = Identity & CommonFields & { event: string; properties?: FreeformObject };
/** Recognised page properties: url, title, referrer, path, search; custom keys allowed. */
export type PageMessage = Identity &
  CommonFields & { name?: string; category?: string; properties?: FreeformObject };
export type ScreenMessage = Identity &
  CommonFields & { name?: string; category?: string; properties?: FreeformObject };
export type GroupMessage = Identity & CommonFields & { groupId: string; traits?: FreeformObject };
export type AliasMessage = CommonFields & { userId: string; previousId: string; anonymousId?: string };

/** One call as the tracking API would receive it in a batch: `type`, a messageId, known fields. */
export type RawMessage = JsonObject & { type: TrackingType; messageId: string };

const COMMON_KEYS = ['userId', 'anonymousId', 'timestamp', 'context', 'integrations'] as const;
const TYPE_KEYS: Record<TrackingType, readonly string[]> = {
  identify: ['traits'],
  track: ['event', 'properties'],
  page: ['name', 'category', 'properties'],
  screen: ['name', 'category', 'properties'],
  group: ['groupId', 'traits'],
  alias: ['previousId'],
};
/** Every key a call of each type keeps: the common ones, then its own. */
const KEYS = Object.fromEntries(
  Object.entries(TYPE_KEYS).map(([type, own]) => [type, [...COMMON_KEYS, ...own]]),
) as unknown as Record<TrackingType, readonly string[]>;

/**
 * The call as a tracking-API batch item: its known fields only, a Date timestamp as ISO 8601,
 * and a messageId (generated when absent). Free-form values are kept as given (bigint, Date
 * included): they are serialised losslessly when encoded.
 */
export function rawMessage(type: TrackingType, message: unknown, newMessageId: () => string): RawMessage {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    throw new InvalidMessageError('not_an_object', `${type} takes one message object`);
  }
  const fields = message as Record<string, unknown>;
  const raw: Record<string, unknown> = { type, messageId: messageIdOf(fields.messageId) ?? newMessageId() };
  for (const key of KEYS[type]) {
    const value = fields[key];
    if (value !== undefined) raw[key] = value;
  }
  if (raw.timestamp instanceof Date) raw.timestamp = isoTimestamp(raw.timestamp);
  return raw as RawMessage;
}

/** Like the API: empty means absent, a number keeps its text. */
function messageIdOf(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  throw new InvalidMessageError('invalid_field', '"messageId" must be a string');
}

function isoTimestamp(date: Date): string {
  if (Number.isNaN(date.getTime()))
    throw new InvalidMessageError('invalid_timestamp', '"timestamp" is an invalid Date');
  return date.toISOString();
}

/**
 * Normalises a call exactly as the tracking API does (`normalizeEvent`, the same code), or
 * throws the typed error for the API's rejection.
 */
export function normalizeCall(
  raw: RawMessage,
  options: { sourceId: string; receivedAtMs: number },
): { event: TrackingEvent; precomputed: PrecomputedFields } {
  const result = normalizeEvent(raw, {
    sourceId: options.sourceId,
    receivedAtMs: options.receivedAtMs,
    pathType: raw.type,
    defaults: {},
    newMessageId: () => raw.messageId,
  });
  if (!result.ok) throw InvalidMessageError.from(result.rejection);
  return { event: result.event, precomputed: result.precomputed };
}
