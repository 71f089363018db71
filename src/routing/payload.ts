import { stringifyJson, type JsonObject } from '../events/json';
import type { HooklineEvent, TrackingEvent } from '../events/types';

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

/** The exact body to POST (and to sign): the shaped payload, serialised losslessly once. */
export function serialisePayload(event: HooklineEvent): string {
  return stringifyJson(shapePayload(event));
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
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value;
  return out;
}
