import { stringifyJson, type JsonObject } from '../events/json';
import type { HooklineEvent } from '../events/types';
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
  return shape(event, event as FreeFormObjects);
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
  const { context, properties, traits } = event as FreeFormObjects;
  const shaped = shape(event, {
    context: texts.context !== undefined ? PLACEHOLDER : context,
    properties: texts.properties !== undefined ? PLACEHOLDER : properties,
    traits: texts.traits !== undefined ? PLACEHOLDER : traits,
  });
  let out = '{';
  for (const key in shaped) {
    const text = key in FREE_FORM_FIELDS ? texts[key as keyof FreeFormTexts] : undefined;
    const name = QUOTED_KEYS.get(key) ?? JSON.stringify(key);
    out += `${out.length > 1 ? ',' : ''}${name}:${text ?? stringifyJson(shaped[key])}`;
  }
  return `${out}}`;
}

/** The payload fields that are an event's free-form objects, as they are. */
const FREE_FORM_FIELDS = { context: true, properties: true, traits: true } as const;

type FreeFormObjects = Partial<Record<keyof typeof FREE_FORM_FIELDS, JsonObject>>;

/** Stands for a free-form object whose text goes in the body instead; never serialised. */
const PLACEHOLDER: JsonObject = Object.freeze({}) as JsonObject;

/** Every key a payload may have, quoted as JSON prints it. */
const QUOTED_KEYS = new Map(
  [
    ...['version', 'type', 'messageId', 'anonymousId', 'userId', 'Previous ID', 'User ID'],
    ...['name', 'category', 'event', 'groupId', 'properties', 'traits', 'timestamp', 'context'],
  ].map((key) => [key, JSON.stringify(key)]),
);

/** shapePayload, with the free-form objects taken from `free`. One object, built in key order. */
function shape(event: HooklineEvent, free: FreeFormObjects): JsonObject {
  if (event.type === 'delete') return { type: event.type, userId: event.userId, timestamp: event.timestamp };
  const out: JsonObject = { version: PAYLOAD_VERSION, type: event.type, messageId: event.messageId };
  if (event.anonymousId !== undefined) out.anonymousId = event.anonymousId;
  if (event.type === 'alias') {
    out['Previous ID'] = event.previousId;
    out['User ID'] = event.userId;
  } else if (event.userId !== undefined) out.userId = event.userId;
  switch (event.type) {
    case 'page':
    case 'screen':
      if (event.name !== undefined) out.name = event.name;
      if (event.category !== undefined) out.category = event.category;
      if (event.type === 'page') out.properties = free.properties ?? {};
      else if (free.properties !== undefined) out.properties = free.properties;
      break;
    case 'identify':
      out.traits = free.traits ?? {};
      break;
    case 'track':
      out.event = event.event;
      out.properties = free.properties ?? {};
      break;
    case 'group':
      out.groupId = event.groupId;
      out.traits = free.traits ?? {};
      break;
    case 'alias':
      break;
  }
  out.timestamp = event.timestamp;
  out.context = free.context ?? {};
  return out;
}
