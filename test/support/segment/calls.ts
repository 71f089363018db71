import type { JsonObject } from '../../../src/events/json';
import type { TrackingType } from '../../../src/events/types';

/**
 * The calls every Segment client program sends (go-v2/main.go, go-v3/main.go, analytics-node.ts
 * keep to this list): one of each type, ids derived from a run id so one run's events are told
 * apart from any other's. A change here needs the same change in the client programs.
 */
export interface ClientCall {
  type: TrackingType;
  userId?: string;
  anonymousId?: string;
  event?: string;
  name?: string;
  groupId?: string;
  previousId?: string;
  traits?: JsonObject;
  properties?: JsonObject;
}

export function clientCalls(runId: string, options: { screen: boolean }): ClientCall[] {
  const userId = `${runId}-user`;
  const anonymousId = `${runId}-anon`;
  const calls: ClientCall[] = [
    {
      type: 'identify',
      userId,
      traits: { name: 'Zoë Client', email: 'zoe@example.com', plan: 'pro', logins: 42 },
    },
    {
      type: 'track',
      userId,
      event: 'Order Completed',
      properties: { revenue: 19.9, currency: 'EUR', orderId: `${runId}-order`, items: 3 },
    },
    { type: 'track', anonymousId, event: 'Signup Viewed', properties: { step: 1 } },
    { type: 'page', userId, name: 'Pricing', properties: { path: '/pricing', title: 'Pricing' } },
    { type: 'screen', userId, name: 'Settings', properties: { tab: 'privacy' } },
    { type: 'group', userId, groupId: `${runId}-group`, traits: { name: 'Acme', employees: 120 } },
    { type: 'alias', userId, previousId: anonymousId },
  ];
  return options.screen ? calls : calls.filter((c) => c.type !== 'screen');
}

/** One HTTP request a client program made, as its recorder saw it. */
export interface WireRequest {
  method: string;
  path: string;
  authUser: string;
  authPassword: string;
  contentType: string;
  status: number;
  error?: string;
  /** The request body exactly as sent, parsed. */
  body: JsonObject;
}

/** One run of a client program (or a replayed request): what it sent, and when. */
export interface ClientRun {
  runId: string;
  requests: WireRequest[];
  /** Epoch ms bounds of the run: every receivedAt lies within. */
  startedMs: number;
  endedMs: number;
}

/**
 * A client timestamp in epoch ms, parsed here independently of src/ingest/timestamps.ts:
 * `+0000` offsets (analytics-go v2) and nanosecond fractions (analytics-go v3) included.
 */
export function wireTimestampMs(text: string): number {
  const normalized = text.replace(/(\.\d{3})\d+/, '$1').replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  const ms = Date.parse(normalized);
  if (!Number.isFinite(ms)) throw new Error(`not a timestamp: ${text}`);
  return ms;
}
