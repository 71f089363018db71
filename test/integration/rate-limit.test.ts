import { uniquePrefix } from '../support/app';
import { eventually } from '../support/eventually';
import { createSource, sendTracking } from '../support/hookline';
import { testScope } from '../support/scope';

/** maxRequestsPerSecond on the real pipeline, with several worker processes on one cluster. */
describe('per-destination rate limit', () => {
  const { app, receiver } = testScope();

  it('never sends a destination more than its limit in any one-second window, across workers, losing nothing', async () => {
    const prefix = uniquePrefix();
    const env = {
      HOOKLINE_TOPIC_PREFIX: prefix,
      HOOKLINE_RETRY_SCHEDULE: '500ms',
      HOOKLINE_RETRY_CUTOFF: '5m',
    };
    const front = await app({ ...env, HOOKLINE_ROLES: 'ingest,router' });
    // Two workers: first attempts go to whichever owns the destination's partition, retries to
    // whichever owns the delay topic's; both must stay under one limit together.
    await app({ ...env, HOOKLINE_ROLES: 'worker' });
    await app({ ...env, HOOKLINE_ROLES: 'worker' });

    const limit = 20;
    const burst = 2; // a tenth of a second's worth (burstFor)
    // Requests leave at most limit + burst a second; on a loaded machine their arrival times can
    // bunch up by a few (the receiver timestamps them after reading the body).
    const arrivalJitter = 3;
    // Every 7th request fails once, so some deliveries go through the delay topics and back.
    const r = await receiver((_req, index) => ({ status: index % 7 === 3 ? 500 : 200 }));
    const src = await createSource(front);
    const created = await front.admin<{ id: string; settings: { maxRequestsPerSecond?: number } }>(
      'POST',
      '/api/v1/destinations',
      {
        sourceId: src.id,
        name: 'limited',
        settings: { webhooks: [{ url: r.url }], maxRequestsPerSecond: limit },
      },
    );
    expect(created.status).toBe(201);
    expect(created.body.settings.maxRequestsPerSecond).toBe(limit);

    const events = 120;
    const batch = Array.from({ length: events }, (_, i) => ({
      type: 'track',
      userId: `u${i % 10}`,
      event: 'Limited',
      messageId: `rl-${i}`,
    }));
    expect((await sendTracking(front, src.writeKey, '/v1/batch', { batch })).status).toBe(200);

    const delivered = () =>
      new Set(
        r.requests
          .filter((_q, i) => i % 7 !== 3)
          .map((q) => (JSON.parse(q.body.toString('utf8')) as { messageId: string }).messageId),
      );
    await eventually(() => delivered().size === events || undefined, {
      what: 'every event delivered',
      timeoutMs: 60_000,
    });
    const times = r.requests.map((q) => q.atMs).sort((a, b) => a - b);
    let busiest = 0;
    for (const start of times)
      busiest = Math.max(busiest, times.filter((t) => t >= start && t < start + 1_000).length);
    expect(busiest).toBeLessThanOrEqual(limit + burst + arrivalJitter);
    expect(busiest).toBeGreaterThanOrEqual(limit / 2); // and it did run near the limit
  });
});
