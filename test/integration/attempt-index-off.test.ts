import { eventually } from '../support/eventually';
import { createDestination, createSource, sendTracking } from '../support/hookline';
import { testScope } from '../support/scope';

/**
 * HOOKLINE_ATTEMPT_INDEX=false, as the chart sets it on a split deployment's router and worker
 * pods: the process delivering reads none of `<prefix>.attempts`, still writes every attempt
 * record, and answers the attempts route 503 attempt_index_off; the API process, with its index,
 * lists the attempts the other one made.
 */
describe('a process without the attempt index', () => {
  const { app, receiver } = testScope();

  it('delivers and writes attempt records; only the process keeping the index lists them', async () => {
    const api = await app({ HOOKLINE_ROLES: 'ingest' });
    const delivering = await app({
      HOOKLINE_ROLES: 'router,worker',
      HOOKLINE_ATTEMPT_INDEX: 'false',
      HOOKLINE_TOPIC_PREFIX: api.prefix,
    });
    expect(api.app.roles.operations.attemptIndex).toBeDefined();
    expect(delivering.app.roles.operations.attemptIndex).toBeUndefined();

    const src = await createSource(api);
    const r = await receiver(() => ({ status: 200 }));
    const destinationId = await createDestination(api, { sourceId: src.id, webhooks: [{ url: r.url }] });
    const messageIds = ['m-1', 'm-2', 'm-3'];
    for (const messageId of messageIds) {
      const sent = await sendTracking(api, src.writeKey, '/v1/track', { userId: 'u', event: 'E', messageId });
      expect(sent.status).toBe(200);
    }
    await eventually(() => r.requests.length === messageIds.length, {
      what: 'the three deliveries',
      timeoutMs: 30_000,
    });

    // The API process lists the attempts the delivering process wrote.
    const listed = await eventually(
      async () => {
        const res = await api.admin<{ attempts: { messageId: string; outcome: string }[] }>(
          'GET',
          `/api/v1/destinations/${destinationId}/attempts`,
        );
        return res.status === 200 && res.body.attempts.length === messageIds.length ? res.body : undefined;
      },
      { what: 'the attempts listed by the API process', timeoutMs: 20_000 },
    );
    expect(listed.attempts.map((a) => a.messageId).sort()).toEqual(messageIds);
    expect(new Set(listed.attempts.map((a) => a.outcome))).toEqual(new Set(['delivered']));

    // The delivering process says why it cannot answer, for a known and an unknown destination.
    for (const id of [destinationId, 'nope']) {
      const off = await delivering.admin<{ error: string; message: string }>(
        'GET',
        `/api/v1/destinations/${id}/attempts`,
      );
      expect(off.status).toBe(503);
      expect(off.body.error).toBe('attempt_index_off');
      expect(off.body.message).toContain('HOOKLINE_ATTEMPT_INDEX=false');
    }

    // Its /metrics has no attempt index gauges; the API process's has them.
    const metricsOf = async (baseUrl: string) => (await fetch(`${baseUrl}/metrics`)).text();
    expect(await metricsOf(delivering.baseUrl)).not.toMatch(/^hookline_attempt_index_attempts/m);
    expect(await metricsOf(api.baseUrl)).toMatch(/^hookline_attempt_index_attempts \d+$/m);
  }, 90_000);
});
