import { Analytics } from '@segment/analytics-node';
import type { Receiver } from './receiver';

/** One identify a receiver got from the audience processor: who, which trait key, which value. */
export interface Announced {
  userId?: string;
  anonymousId?: string;
  key: string;
  value: unknown;
  personas: Record<string, unknown>;
  messageId: string;
}

/** The audience identifies (context.personas) a receiver got, in arrival order. */
export function announcements(receiver: Receiver): Announced[] {
  const out: Announced[] = [];
  for (const r of receiver.requests) {
    const body = JSON.parse(r.body.toString('utf8'));
    const personas = body.context?.personas;
    if (body.type !== 'identify' || !personas) continue;
    const key = personas.computation_key as string;
    out.push({
      userId: body.userId,
      anonymousId: body.anonymousId,
      key,
      value: body.traits?.[key],
      personas,
      messageId: body.messageId,
    });
  }
  return out;
}

/** The user's own calls a receiver got (not announcements). */
export function userCalls(receiver: Receiver): Record<string, unknown>[] {
  return receiver.requests
    .map((r) => JSON.parse(r.body.toString('utf8')) as Record<string, unknown>)
    .filter((b) => !(b.context as { personas?: unknown } | undefined)?.personas);
}

export type SegmentCall =
  | { type: 'identify'; userId: string; traits: Record<string, unknown> }
  | { type: 'track'; userId: string; event: string; properties?: Record<string, unknown> };

/** Sends calls through the real @segment/analytics-node client and waits for its flush. */
export async function sendWithSegment(host: string, writeKey: string, calls: SegmentCall[]): Promise<void> {
  const analytics = new Analytics({ writeKey, host, path: '/v1/batch', flushAt: 100, maxRetries: 3 });
  const errors: string[] = [];
  analytics.on('error', (err) => errors.push(JSON.stringify(err)));
  for (const call of calls) {
    if (call.type === 'identify') analytics.identify({ userId: call.userId, traits: call.traits });
    else analytics.track({ userId: call.userId, event: call.event, properties: call.properties });
  }
  await analytics.closeAndFlush({ timeout: 20_000 });
  if (errors.length > 0) throw new Error(`the Segment client reported: ${errors.join('; ')}`);
}
