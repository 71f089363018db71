import { eventually } from '../support/eventually';
import { createDestination, createSource, sendTracking } from '../support/hookline';
import { testScope } from '../support/scope';

interface WebhookView {
  url: string;
  circuit?: { state: string; since: string; lastError?: string };
}

/** Circuit breakers per destination URL on the real pipeline. */
describe('circuit breaker', () => {
  const { app, receiver } = testScope();

  it('opens on a URL that keeps failing: later tasks skip it and fail over, and the state is visible', async () => {
    // One request at a time to the destination, so the breaker sees each outcome before the next
    // call; a long first retry step keeps retries out of the test.
    const t = await app({ HOOKLINE_DESTINATION_CONCURRENCY: '1', HOOKLINE_RETRY_SCHEDULE: '10m' });
    const src = await createSource(t);
    const down = await receiver(() => ({ status: 500 }));
    const up = await receiver(() => ({ status: 200 }));
    const destinationId = await createDestination(t, {
      sourceId: src.id,
      webhooks: [{ url: down.url }, { url: up.url }],
    });
    const events = 15;
    const batch = Array.from({ length: events }, (_, i) => ({
      type: 'track',
      userId: `u${i}`,
      event: 'Ping',
      messageId: `cb-${i}`,
    }));
    expect((await sendTracking(t, src.writeKey, '/v1/batch', { batch })).status).toBe(200);

    await eventually(() => up.requests.length === events || undefined, { what: 'every event at URL 1' });
    // The breaker opens at its minimum volume (10 requests, all failed); the rest skip URL 0.
    expect(down.requests).toHaveLength(10);

    const read = await t.admin<{ settings: { webhooks: WebhookView[] } }>(
      'GET',
      `/api/v1/destinations/${destinationId}`,
    );
    const [first, second] = read.body.settings.webhooks;
    expect(first!.circuit).toMatchObject({ state: 'open', lastError: 'http_5xx' });
    expect(second!.circuit).toMatchObject({ state: 'closed' });

    const metrics = await fetch(`${t.baseUrl}/metrics`).then((r) => r.text());
    expect(metrics).toContain(
      `hookline_destination_circuit_open{destination_id="${destinationId}",url_index="0"} 1`,
    );

    // The attempt log shows the skipped URL on the tasks that came after the circuit opened.
    const skipped = await eventually(
      async () => {
        const res = await t.admin<{ attempts: { urls: { urlIndex: number; result: string }[] }[] }>(
          'GET',
          `/api/v1/destinations/${destinationId}/attempts`,
        );
        const found = res.body.attempts.filter((a) => a.urls[0]?.result === 'circuit_open');
        return found.length === events - 10 ? found : undefined;
      },
      { what: 'the attempts that skipped URL 0 in the attempt log' },
    );
    for (const attempt of skipped) {
      expect(attempt.urls).toEqual([
        expect.objectContaining({ urlIndex: 0, result: 'circuit_open' }),
        expect.objectContaining({ urlIndex: 1, result: 'success' }),
      ]);
    }
  });
});
