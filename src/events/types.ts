import type { JsonObject } from './json';

/** Call types a source can send. */
export const TRACKING_TYPES = ['identify', 'track', 'page', 'screen', 'group', 'alias'] as const;
export type TrackingType = (typeof TRACKING_TYPES)[number];
export type EventType = TrackingType | 'delete';

/**
 * Fields every tracking event has once ingested. Timestamps are ISO 8601 UTC strings with
 * milliseconds (`2009-11-10T23:00:00.000Z`). Optional fields are absent, never null.
 */
export interface CommonFields {
  messageId: string;
  userId?: string;
  anonymousId?: string;
  /** When it happened, corrected for client clock skew. */
  timestamp: string;
  /** The timestamp the client sent, when it sent one. */
  originalTimestamp?: string;
  sentAt?: string;
  receivedAt: string;
  sourceId: string;
  context?: JsonObject;
  integrations?: JsonObject;
}

export interface IdentifyEvent extends CommonFields {
  type: 'identify';
  traits?: JsonObject;
}
export interface TrackEvent extends CommonFields {
  type: 'track';
  event: string;
  properties?: JsonObject;
}
export interface PageEvent extends CommonFields {
  type: 'page';
  name?: string;
  category?: string;
  properties?: JsonObject;
}
export interface ScreenEvent extends CommonFields {
  type: 'screen';
  name?: string;
  category?: string;
  properties?: JsonObject;
}
export interface GroupEvent extends CommonFields {
  type: 'group';
  groupId: string;
  traits?: JsonObject;
}
export interface AliasEvent extends CommonFields {
  type: 'alias';
  userId: string;
  previousId: string;
}
/** A deletion request for one user of one source. */
export interface DeleteEvent {
  type: 'delete';
  messageId: string;
  userId: string;
  timestamp: string;
  receivedAt: string;
  sourceId: string;
}

export type TrackingEvent = IdentifyEvent | TrackEvent | PageEvent | ScreenEvent | GroupEvent | AliasEvent;
export type HooklineEvent = TrackingEvent | DeleteEvent;

/** Kafka key of an event: per-user ordering. */
export function eventKey(event: HooklineEvent): string {
  return event.userId ?? ('anonymousId' in event && event.anonymousId ? event.anonymousId : event.messageId);
}
