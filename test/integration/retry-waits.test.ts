import { decodeTask, type DeliveryTask } from '../../src/records/delivery-task';
import type { TestApp } from '../support/app';
import { eventually } from '../support/eventually';
import { createDestination, createSource, sendTracking } from '../support/hookline';
import { testScope } from '../support/scope';
import { readTopic } from '../support/topics';

/** Waits a retry must honour: a long Retry-After, and a destination disabled meanwhile. */
describe('retries that wait', () => {
  const { app, receiver } = testScope();

  it('honours a Retry-After longer than the last step of the schedule, never retrying early', async () => {
    const t = await app({ HOOKLINE_RETRY_SCHEDULE: '300ms,600ms', HOOKLINE_RETRY_CUTOFF: '30s' });
    const src = await createSource(t);
    const r = await receiver((_req, index) =>
      index === 0 ? { status: 429, headers: { 'retry-after': '3' } } : { status: 200 },
    );
    await createDestination(t, { sourceId: src.id, webhooks: [{ url: r.url }] });
    await sendTracking(t, src.writeKey, '/v1/track', { userId: 'u', event: 'Busy', messageId: 'm-busy' });

    await eventually(() => r.requests.length === 2 || undefined, { what: 'the retry', timeoutMs: 20_000 });
    // Not after the 600 ms step: after the 3 s the receiver asked for (parked again meanwhile).
    expect(r.requests[1]!.atMs - r.requests[0]!.atMs).toBeGreaterThanOrEqual(3_000);
  });

  it('dead-letters at once a task whose Retry-After would pass the cutoff', async () => {
    const t = await app({ HOOKLINE_RETRY_SCHEDULE: '300ms', HOOKLINE_RETRY_CUTOFF: '5s' });
    const src = await createSource(t);
    const r = await receiver(() => ({ status: 503, headers: { 'retry-after': '60' } }));
    await createDestination(t, { sourceId: src.id, webhooks: [{ url: r.url }] });
    await sendTracking(t, src.writeKey, '/v1/track', { userId: 'u', event: 'Later', messageId: 'm-later' });

    const dead = await eventually(() => deadLetters(t), { what: 'a dead-lettered task' });
    expect(dead.map((d) => d.deadLetterReason)).toEqual(['retry_after_beyond_cutoff']);
    expect(r.requests).toHaveLength(1);
  });

  it('pauses the tasks of a disabled destination, and delivers them once it is enabled again', async () => {
    const t = await app({ HOOKLINE_RETRY_SCHEDULE: '300ms,600ms', HOOKLINE_RETRY_CUTOFF: '60s' });
    const src = await createSource(t);
    const r = await receiver((_req, index) => ({ status: index === 0 ? 503 : 200 }));
    const destinationId = await createDestination(t, { sourceId: src.id, webhooks: [{ url: r.url }] });
    await sendTracking(t, src.writeKey, '/v1/track', { userId: 'u', event: 'Paused', messageId: 'm-paused' });
    await eventually(() => r.requests.length === 1 || undefined, { what: 'the first attempt' });

    // Disabled while its retry waits: the retry comes due, finds it disabled, and is parked.
    expect((await t.admin('PATCH', `/api/v1/destinations/${destinationId}`, { enabled: false })).status).toBe(
      200,
    );
    const parked = await eventually(
      async () => {
        const tasks = await delayed(t);
        return tasks.some((task) => task.history.some((h) => h.error === 'destination_disabled'))
          ? tasks
          : undefined;
      },
      { what: 'the retry parked while disabled' },
    );
    expect(parked.length).toBeGreaterThan(0);
    expect(r.requests).toHaveLength(1);
    expect(await deadLetters(t)).toBeUndefined();

    expect((await t.admin('PATCH', `/api/v1/destinations/${destinationId}`, { enabled: true })).status).toBe(
      200,
    );
    await eventually(() => r.requests.length === 2 || undefined, { what: 'the delivery after re-enabling' });
    expect(JSON.parse(r.requests[1]!.body.toString('utf8'))).toMatchObject({ messageId: 'm-paused' });
  });
});

async function decodeAll(t: TestApp, topic: string): Promise<DeliveryTask[]> {
  const records = await readTopic(t, topic);
  return Promise.all(records.map((v) => decodeTask(t.app.parts.avro, v)));
}

async function delayed(t: TestApp): Promise<DeliveryTask[]> {
  const topics = (await t.app.parts.admin.listTopics()).filter((n) => n.startsWith(`${t.prefix}.retry.`));
  return (await Promise.all(topics.map((topic) => decodeAll(t, topic)))).flat();
}

async function deadLetters(t: TestApp): Promise<DeliveryTask[] | undefined> {
  const tasks = await decodeAll(t, `${t.prefix}.dlq`);
  return tasks.length > 0 ? tasks : undefined;
}
