import { uniquePrefix } from '../support/app';
import { eventually } from '../support/eventually';
import { createDestination, createSource, sendTracking } from '../support/hookline';
import { testScope } from '../support/scope';

interface WebhookView {
  url: string;
  circuit?: { state: string; since?: string; lastError?: string };
}

/**
 * Issue 13 §1 and issue 14 §2: circuit states live on `<prefix>.circuits`, so every replica shows
 * the same circuit, and a worker that starts after a URL's circuit opened elsewhere (another
 * replica, or a restart) skips that URL instead of sending it a fresh wave of requests.
 */
describe('circuit state shared between replicas', () => {
  const { app, receiver, stop } = testScope();

  it('an open circuit on one replica is open on the other: its read shows it and its worker skips the URL', async () => {
    const env = {
      HOOKLINE_TOPIC_PREFIX: uniquePrefix(),
      // One request at a time to the destination, so the breaker sees each outcome before the
      // next call; no retries and no cool-down within the test.
      HOOKLINE_DESTINATION_CONCURRENCY: '1',
      HOOKLINE_RETRY_SCHEDULE: '10m',
      HOOKLINE_CIRCUIT_COOLDOWN: '10m',
    };
    const a = await app(env);
    const src = await createSource(a);
    const down = await receiver(() => ({ status: 500 }));
    const up = await receiver(() => ({ status: 200 }));
    const destinationId = await createDestination(a, {
      sourceId: src.id,
      webhooks: [{ url: down.url }, { url: up.url }],
    });
    const send = async (t: typeof a, from: number, to: number) => {
      const batch = Array.from({ length: to - from }, (_, i) => ({
        type: 'track',
        userId: `u${from + i}`,
        event: 'Ping',
        messageId: `cr-${from + i}`,
      }));
      expect((await sendTracking(t, src.writeKey, '/v1/batch', { batch })).status).toBe(200);
    };
    const webhooks = async (t: typeof a) =>
      (
        await t.admin<{ settings: { webhooks: WebhookView[] } }>(
          'GET',
          `/api/v1/destinations/${destinationId}`,
        )
      ).body.settings.webhooks;

    // Replica A opens URL 0's circuit (10 failed requests, its minimum volume).
    await send(a, 0, 15);
    await eventually(() => up.requests.length === 15 || undefined, { what: 'every event at URL 1' });
    expect(down.requests).toHaveLength(10);
    const seenByA = await eventually(
      async () => {
        const [first] = await webhooks(a);
        return first?.circuit?.state === 'open' ? first.circuit : undefined;
      },
      { what: 'the open circuit on replica A' },
    );
    expect(seenByA).toMatchObject({ state: 'open', lastError: 'http_5xx' });

    // Replica B, started afterwards, shows the same circuit, and so does a process without a worker.
    const b = await app(env);
    const readOnly = await app({ ...env, HOOKLINE_ROLES: 'ingest' });
    for (const t of [b, readOnly]) {
      const [first, second] = await webhooks(t);
      expect(first!.circuit).toEqual(seenByA);
      expect(second!.circuit).toEqual({ state: 'closed' });
    }

    // With A gone, B's worker delivers the next events: it skips URL 0 from its first task on.
    await stop(a);
    await send(b, 15, 25);
    await eventually(() => up.requests.length === 25 || undefined, { what: 'the next events at URL 1' });
    expect(down.requests).toHaveLength(10);
    const metrics = await fetch(`${b.baseUrl}/metrics`).then((r) => r.text());
    expect(metrics).toContain(
      `hookline_destination_circuit_open{destination_id="${destinationId}",url_index="0"} 1`,
    );
  });
});
