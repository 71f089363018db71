import type { EventCodec } from '../../src/records/event';
import type { JsonValue } from '../../src/events/json';
import { eventKey, type TrackingEvent } from '../../src/events/types';
import { normalizeEvent } from '../../src/events/normalize';

/**
 * The workload: Segment `track` calls as analytics-node sends them (about 600 bytes of JSON each:
 * an order with two products, a library/page/userAgent context), spread over 1,000 users so keys
 * cover every partition. Each messageId is unique per run, so the router's de-duplication never
 * drops one.
 */
export const USERS = 1_000;

/** One tracking event. `sentAt` (performance.now() of the sender) rides along in properties. */
export function trackEvent(runId: string, index: number, sentAt?: number): Record<string, unknown> {
  return {
    type: 'track',
    event: 'Order Completed',
    userId: `user-${index % USERS}`,
    messageId: `${runId}-${index}`,
    timestamp: new Date().toISOString(),
    properties: {
      orderId: `order-${index}`,
      revenue: 42.5,
      currency: 'EUR',
      coupon: 'SPRING',
      products: [
        { sku: 'SKU-1001', name: 'Kettle', price: 30, quantity: 1 },
        { sku: 'SKU-2002', name: 'Mug', price: 6.25, quantity: 2 },
      ],
      ...(sentAt !== undefined && { benchSentAt: sentAt }),
    },
    context: {
      library: { name: 'analytics-node', version: '2.1.0' },
      ip: '203.0.113.7',
      locale: 'en-GB',
      page: { path: '/checkout/complete', url: 'https://shop.example.com/checkout/complete' },
      userAgent:
        'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
    },
  };
}

/** The body of one `POST /v1/batch` with events [first, first + count). */
export function batchBody(runId: string, first: number, count: number, sentAt?: number): string {
  const batch = Array.from({ length: count }, (_, k) => trackEvent(runId, first + k, sentAt));
  return JSON.stringify({ batch, sentAt: new Date().toISOString() });
}

/** HTTP Basic with the write key as user name, as Segment clients send it. */
export function writeKeyHeader(writeKey: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${writeKey}:`).toString('base64')}` };
}

export interface EncodedRecord {
  key: string;
  value: Buffer;
}

/** The event as the tracking API stores it (normalised by the app's own code). */
export function normalizedEvent(
  sourceId: string,
  runId: string,
  index: number,
  receivedAtMs = Date.now(),
): TrackingEvent {
  const raw = JSON.parse(JSON.stringify(trackEvent(runId, index))) as JsonValue;
  const result = normalizeEvent(raw, {
    sourceId,
    receivedAtMs,
    pathType: undefined,
    defaults: {},
    newMessageId: () => `${runId}-${index}`,
  });
  if (!result.ok) throw new Error(`the bench event is refused: ${result.rejection.reason}`);
  return result.event;
}

/**
 * The Kafka records the tracking API writes for these events, Avro-encoded with the app's own
 * codec: a raw-produce baseline sends exactly the bytes Hookline would.
 */
export function encodeEvents(
  codec: EventCodec,
  sourceId: string,
  runId: string,
  count: number,
): EncodedRecord[] {
  return Array.from({ length: count }, (_, i) => {
    const event = normalizedEvent(sourceId, runId, i);
    return { key: eventKey(event), value: codec.encode(event) };
  });
}
