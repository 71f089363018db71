import { stringifyJson, type JsonObject } from '../events/json';
import type { HooklineEvent, TrackingEvent } from '../events/types';
import type { FreeFormTexts } from '../records/event';

/** The `version` every payload but delete carries. */
export const PAYLOAD_VERSION = 1;

/**
 * The JSON body POSTed to a webhook, per the destination spec. Keys come in a fixed order
 * (receivers and tests may compare bodies byte for byte):
 *
 *   version, type, messageId, anonymousId?, userId? | "Previous ID", "User ID",
 *   <type fields>, timestamp, context
 *
 * where the type fields are
 *   page      name?, category?, properties
 *   screen    name?, category?, properties?
 *   identify  traits
 *   track     event, properties
 *   group     groupId, traits
 *   alias     (none: its ids are "Previous ID" and "User ID", spelled exactly so, instead of userId)
 *
 * `?` = only when the event has it. `context`, and every free-form object listed without `?`,
 * is `{}` when the event has none. A screen's `name` is optional in the event model, so it is
 * sent only when present.
 *
 * A delete carries only `type`, `userId`, `timestamp` (no version, messageId or context).
 * Other event fields (receivedAt, sentAt, originalTimestamp, integrations, sourceId) are not sent.
 */
export function shapePayload(event: HooklineEvent): JsonObject {
  if (event.type === 'delete') return { type: event.type, userId: event.userId, timestamp: event.timestamp };
  return {
    version: PAYLOAD_VERSION,
    type: event.type,
    messageId: event.messageId,
    ...present({ anonymousId: event.anonymousId }),
    ...identity(event),
    ...typeFields(event),
    timestamp: event.timestamp,
    context: event.context ?? {},
  };
}

/**
 * The exact body to POST (and to sign): the shaped payload, serialised losslessly once. `texts`:
 * the JSON text the event's record holds for its free-form objects (`EventCodec.decodeWithTexts`),
 * put in the body as it is instead of serialising the parsed object again. Hookline writes that
 * text with `stringifyJson`, which prints a parsed copy of it identically, so the body is byte for
 * byte the same (tested); a record another producer wrote with other spacing keeps its spacing.
 */
export function serialisePayload(event: HooklineEvent, texts?: FreeFormTexts): string {
  if (!texts) return stringifyJson(shapePayload(event));
  // The event may have its free-form objects only as text (decodeWithTexts): whether the payload
  // has such a field (a screen's properties) is then the text's presence.
  const shaped = shapePayload({ ...event, ...placeholders(texts) });
  let out = '{';
  for (const key in shaped) {
    const text = key in FREE_FORM_FIELDS ? texts[key as keyof FreeFormTexts] : undefined;
    out += `${out.length > 1 ? ',' : ''}${JSON.stringify(key)}:${text ?? stringifyJson(shaped[key])}`;
  }
  return `${out}}`;
}

/** The payload fields that are an event's free-form objects, as they are. */
const FREE_FORM_FIELDS = { context: true, properties: true, traits: true } as const;

/** An empty object in each free-form field that has a text, for shapePayload to place it. */
function placeholders(texts: FreeFormTexts): Partial<Record<keyof typeof FREE_FORM_FIELDS, JsonObject>> {
  const out: Partial<Record<keyof typeof FREE_FORM_FIELDS, JsonObject>> = {};
  for (const key in FREE_FORM_FIELDS)
    if (texts[key as keyof FreeFormTexts] !== undefined) out[key as keyof typeof FREE_FORM_FIELDS] = {};
  return out;
}

function identity(event: TrackingEvent): JsonObject {
  if (event.type === 'alias') return { 'Previous ID': event.previousId, 'User ID': event.userId };
  return present({ userId: event.userId });
}

function typeFields(event: TrackingEvent): JsonObject {
  switch (event.type) {
    case 'page':
      return {
        ...present({ name: event.name, category: event.category }),
        properties: event.properties ?? {},
      };
    case 'screen':
      return present({ name: event.name, category: event.category, properties: event.properties });
    case 'identify':
      return { traits: event.traits ?? {} };
    case 'track':
      return { event: event.event, properties: event.properties ?? {} };
    case 'group':
      return { groupId: event.groupId, traits: event.traits ?? {} };
    case 'alias':
      return {};
  }
}

/** The given fields minus the undefined ones, in the given order. */
function present(fields: Record<string, string | JsonObject | undefined>): JsonObject {
  const out: JsonObject = {};
  for (const key in fields) {
    const value = fields[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}
