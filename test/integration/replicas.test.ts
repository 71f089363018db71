import { uniquePrefix } from '../support/app';
import { eventually } from '../support/eventually';
import { createDestination, createSource, sendTracking } from '../support/hookline';
import { testScope } from '../support/scope';

interface Replay {
  id: string;
  state: string;
  done: boolean;
  eventsRead: number;
  tasksWritten: number;
}

/**
 * Two full Hookline processes on one cluster and one set of topics answer operations calls the
 * same: replay progress, dead letters and the attempt log live on Kafka, not in one replica.
 */
describe('replicas behave as one', () => {
  const { app, receiver } = testScope();

  it('answers replay status, dead letters and attempts the same on any replica', async () => {
    const env = {
      HOOKLINE_TOPIC_PREFIX: uniquePrefix(),
      HOOKLINE_RETRY_SCHEDULE: '200ms',
      HOOKLINE_RETRY_CUTOFF: '1s',
    };
    const a = await app(env);
    const b = await app(env);
    const src = await createSource(a);
    const ok = await receiver();
    const refusing = await receiver(() => ({ status: 404 }));
    const okId = await createDestination(a, { sourceId: src.id, webhooks: [{ url: ok.url }] });
    const deadId = await createDestination(a, { sourceId: src.id, webhooks: [{ url: refusing.url }] });
    const since = new Date(Date.now() - 1_000).toISOString();
    const batch = ['r-1', 'r-2', 'r-3'].map((messageId) => ({
      type: 'track',
      userId: 'u',
      event: 'E',
      messageId,
    }));
    expect((await sendTracking(a, src.writeKey, '/v1/batch', { batch })).status).toBe(200);
    await eventually(() => ok.requests.length === 3 || undefined, { what: 'the first deliveries' });

    // A replay started on one replica is followed on the other.
    const started = await a.admin<Replay>('POST', `/api/v1/destinations/${okId}/replay`, { since });
    expect(started.status).toBe(202);
    const seenByB = await eventually(
      async () => {
        const res = await b.admin<Replay>('GET', `/api/v1/replays/${started.body.id}`);
        return res.status === 200 && res.body.done ? res.body : undefined;
      },
      { what: 'the replay done, as the other replica sees it' },
    );
    const seenByA = (await a.admin<Replay>('GET', `/api/v1/replays/${started.body.id}`)).body;
    expect(seenByB).toEqual(seenByA);
    expect(seenByB).toMatchObject({ state: 'done', eventsRead: 3, tasksWritten: 3 });

    // Dead letters (404: not retried) and attempts, listed the same by both.
    const deadLetters = async (t: typeof a) =>
      (
        await t.admin<{ deadLetters: { taskId: string }[] }>(
          'GET',
          `/api/v1/dead-letters?destinationId=${deadId}`,
        )
      ).body.deadLetters
        .map((d) => d.taskId)
        .sort();
    await eventually(async () => ((await deadLetters(b)).length === 3 ? true : undefined), {
      what: 'three dead letters on the other replica',
    });
    expect(await deadLetters(a)).toEqual(await deadLetters(b));
    const attempts = async (t: typeof a) =>
      (
        await t.admin<{ attempts: { taskId: string; attempt: number }[] }>(
          'GET',
          `/api/v1/destinations/${okId}/attempts`,
        )
      ).body.attempts
        .map((x) => `${x.taskId}#${x.attempt}`)
        .sort();
    await eventually(
      async () => ((await attempts(a)).length === 6 && (await attempts(b)).length === 6 ? true : undefined),
      {
        what: 'six attempts (three first, three replayed) on both replicas',
      },
    );
    expect(await attempts(a)).toEqual(await attempts(b));
  });
});
