import { isJsonObject, type JsonObject, type JsonValue } from '../../../src/events/json';
import type { HooklineEvent } from '../../../src/events/types';
import { eventually } from '../eventually';
import { clientCalls, wireTimestampMs, type ClientCall, type ClientRun } from './calls';
import type { StoredEvents, StoredRecord } from './stored-events';

export interface ClientRunExpectation {
  /** The run sent clientCalls(runId) with or without the screen call. */
  screen: boolean;
  sourceId: string;
  /** The key the client authenticated with, when it uses Basic auth. */
  basicAuthUser?: string;
}

/** Fields stored exactly as the client sent them. */
const FIELDS = [
  'userId',
  'anonymousId',
  'event',
  'name',
  'category',
  'groupId',
  'previousId',
  'traits',
  'properties',
];

/**
 * Checks that every call a real client made arrived on `<prefix>.events` exactly once and as it
 * was on the wire: type, ids, names, properties/traits verbatim, the client's messageId, its
 * timestamps (skew-corrected with sentAt), batch context merged under the event's own, the
 * source id, and the Kafka key (userId, else anonymousId). Returns the stored events.
 */
export async function expectClientCallsStored(
  stored: StoredEvents,
  run: ClientRun,
  x: ClientRunExpectation,
): Promise<StoredRecord<HooklineEvent>[]> {
  const calls = clientCalls(run.runId, { screen: x.screen });
  for (const request of run.requests) {
    expect({ path: request.path, status: request.status, error: request.error }).toEqual({
      path: '/v1/batch',
      status: 200,
      error: undefined,
    });
    if (x.basicAuthUser !== undefined) {
      expect([request.authUser, request.authPassword]).toEqual([x.basicAuthUser, '']);
    }
  }

  // What was on the wire, by messageId, with the batch-level fields each item inherits.
  const wire = new Map<string, { item: JsonObject; batch: JsonObject }>();
  for (const { body } of run.requests) {
    expect(Array.isArray(body.batch)).toBe(true);
    for (const item of body.batch as JsonValue[]) {
      if (!isJsonObject(item) || typeof item.messageId !== 'string') {
        throw new Error(`wire item without messageId: ${JSON.stringify(item)}`);
      }
      wire.set(item.messageId, { item, batch: body });
    }
  }
  expect(wire.size).toBe(calls.length);

  const ours = () => stored.events.filter((r) => (r.key ?? '').startsWith(`${run.runId}-`));
  await eventually(() => ours().length >= calls.length, {
    what: `${calls.length} events of run ${run.runId} on the events topic`,
  });
  await stored.catchUp();
  const records = ours();
  expect(records).toHaveLength(calls.length);

  for (const call of calls) {
    const matching = records.filter(
      (r) => r.value.type === call.type && sameDistinguishingFields(r.value, call),
    );
    expect([call.type, call.event ?? call.name ?? '', matching.length]).toEqual([
      call.type,
      call.event ?? call.name ?? '',
      1,
    ]);
    const record = matching[0]!;
    const event = record.value as unknown as Record<string, unknown>;
    const sent = wire.get(event.messageId as string);
    if (!sent) {
      throw new Error(
        `stored ${call.type} has messageId ${String(event.messageId)}, never sent by the client`,
      );
    }
    const { item, batch } = sent;

    // The program sent what it was asked to, and Hookline stored what was sent.
    expect(item).toMatchObject(JSON.parse(JSON.stringify(call)) as object);
    const originalMs = wireTimestampMs(item.timestamp as string);
    const sentAtMs = wireTimestampMs((item.sentAt ?? batch.sentAt) as string);
    const receivedAtMs = Date.parse(event.receivedAt as string);
    expect(receivedAtMs).toBeGreaterThanOrEqual(run.startedMs);
    expect(receivedAtMs).toBeLessThanOrEqual(run.endedMs);
    const expected: Record<string, unknown> = {
      type: call.type,
      messageId: item.messageId,
      sourceId: x.sourceId,
      originalTimestamp: new Date(originalMs).toISOString(),
      sentAt: new Date(sentAtMs).toISOString(),
      timestamp: new Date(receivedAtMs - (sentAtMs - originalMs)).toISOString(),
      receivedAt: event.receivedAt,
    };
    for (const field of FIELDS) {
      if (item[field] !== undefined && item[field] !== '') expected[field] = item[field];
    }
    const context = merged(batch.context, item.context);
    if (context) expected.context = context;
    const integrations = merged(batch.integrations, item.integrations);
    if (integrations) expected.integrations = integrations;
    expect(event).toEqual(expected);
    expect(record.key).toBe(call.userId ?? call.anonymousId);
  }
  return records;
}

function sameDistinguishingFields(event: HooklineEvent, call: ClientCall): boolean {
  const e = event as unknown as Record<string, unknown>;
  return (['userId', 'anonymousId', 'event', 'name', 'groupId', 'previousId'] as const).every(
    (f) => call[f] === undefined || e[f] === call[f],
  );
}

function merged(batch: JsonValue | undefined, own: JsonValue | undefined): JsonObject | undefined {
  const b = isJsonObject(batch) ? batch : undefined;
  const o = isJsonObject(own) ? own : undefined;
  return b && o ? { ...b, ...o } : (o ?? b);
}
