import { retryTopic } from '../../src/kafka/topics';
import { decodeTask, type DeliveryTask } from '../../src/records/delivery-task';
import { uniquePrefix, type TestApp } from '../support/app';
import { eventually } from '../support/eventually';
import { createDestination, createSource, sendTracking } from '../support/hookline';
import { testScope } from '../support/scope';
import { readTopic, uncommittedRecords } from '../support/topics';

/**
 * Retries on the real broker with the 4-hour policy scaled down to seconds:
 * HOOKLINE_RETRY_SCHEDULE / HOOKLINE_RETRY_CUTOFF.
 */
describe('retries through delay topics', () => {
  const { app, receiver, stop } = testScope();

  it('delivers exactly once after N failures, with growing gaps never shorter than scheduled', async () => {
    const scheduleMs = [400, 800, 1_600];
    const t = await app({
      HOOKLINE_RETRY_SCHEDULE: scheduleMs.map((ms) => `${ms}ms`).join(','),
      HOOKLINE_RETRY_CUTOFF: '30s',
    });
    const src = await createSource(t);
    const failures = 3;
    const r = await receiver((_req, index) => ({ status: index < failures ? 503 : 200 }));
    await createDestination(t, { sourceId: src.id, webhooks: [{ url: r.url }] });
    await sendTracking(t, src.writeKey, '/v1/track', { userId: 'u', event: 'Flaky', messageId: 'm-flaky' });

    await eventually(() => r.requests.length === failures + 1 || undefined, {
      what: 'the successful attempt',
      timeoutMs: 30_000,
    });
    // Nothing more arrives once delivered: wait until the retry group committed the last attempt.
    await eventually(async () => (await lag(t, `${t.prefix}.retry`)) === 0 || undefined, {
      what: 'retry commits',
    });
    expect(r.requests).toHaveLength(failures + 1);
    const gaps = r.requests.slice(1).map((q, i) => q.atMs - r.requests[i]!.atMs);
    gaps.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(scheduleMs[i]!));
    // The gaps grow because the n-th retry waited in the n-th, longer delay tier. The measured
    // gaps are not compared with each other: each also holds how late its retry started, which
    // varies with load by more than the 400 ms between two tiers.
    for (const [i, delayMs] of scheduleMs.entries()) {
      const records = await readTopic(t, retryTopic(t.prefix, delayMs));
      const tasks = await Promise.all(records.map((v) => decodeTask(t.app.parts.avro, v)));
      expect(tasks.map((task) => task.attempts)).toEqual([i + 1]);
    }
  });

  it('dead-letters a task that keeps failing once the cutoff is reached, with its whole history', async () => {
    const t = await app({ HOOKLINE_RETRY_SCHEDULE: '300ms,600ms', HOOKLINE_RETRY_CUTOFF: '2s' });
    const src = await createSource(t);
    const r = await receiver(() => ({ status: 500 }));
    const destinationId = await createDestination(t, { sourceId: src.id, webhooks: [{ url: r.url }] });
    await sendTracking(t, src.writeKey, '/v1/track', { userId: 'u', event: 'Doomed', messageId: 'm-cutoff' });

    const dead = await eventually(() => deadLetters(t), { what: 'a dead-lettered task', timeoutMs: 20_000 });
    expect(dead).toHaveLength(1);
    const task = dead[0]!;
    expect(task).toMatchObject({ destinationId, messageId: 'm-cutoff', deadLetterReason: 'retry_cutoff' });
    // Attempts at ≈0, 0.3, 0.9, 1.5 on a quiet machine (the next would be at ≈2.1 s > the 2 s
    // cutoff); fewer fit when retries start late under load, but the first retry always does.
    expect(task.attempts).toBe(r.requests.length);
    expect(task.attempts).toBeGreaterThanOrEqual(2);
    expect(task.history.map((h) => h.result)).toEqual(Array(task.attempts).fill('http_5xx'));
    // The cutoff bounds when the last retry is due, not when it starts (it may start late).
    expect(task.dueAtMs! - task.firstAttemptAtMs!).toBeLessThanOrEqual(2_000);
    expect(task.history[task.attempts - 1]!.atMs).toBeGreaterThanOrEqual(task.dueAtMs!);
  });

  it('loses nothing and sends nothing early when the delay consumer restarts mid-wait', async () => {
    const prefix = uniquePrefix();
    const env = { HOOKLINE_TOPIC_PREFIX: prefix, HOOKLINE_RETRY_SCHEDULE: '4s', HOOKLINE_RETRY_CUTOFF: '1m' };
    const first = await app(env);
    const src = await createSource(first);
    const r = await receiver((_req, index) => ({ status: index === 0 ? 503 : 200 }));
    await createDestination(first, { sourceId: src.id, webhooks: [{ url: r.url }] });
    await sendTracking(first, src.writeKey, '/v1/track', {
      userId: 'u',
      event: 'Restart',
      messageId: 'm-restart',
    });
    await eventually(() => r.requests.length === 1 || undefined, { what: 'the failed first attempt' });
    const firstAttemptAtMs = r.requests[0]!.atMs;

    // Stop the only process while the retry waits in its delay topic, then start another.
    await stop(first);
    await app(env);

    await eventually(() => r.requests.length === 2 || undefined, {
      what: 'the retry after restart',
      timeoutMs: 30_000,
    });
    expect(r.requests[1]!.atMs - firstAttemptAtMs).toBeGreaterThanOrEqual(4_000);
  });

  it('stops calling a URL that answered 410 Gone, records it in the catalog, and keeps the others', async () => {
    const t = await app({ HOOKLINE_RETRY_SCHEDULE: '300ms', HOOKLINE_RETRY_CUTOFF: '30s' });
    const src = await createSource(t);
    const gone = await receiver(() => ({ status: 410 }));
    const flaky = await receiver((_req, index) => ({ status: index === 0 ? 503 : 200 }));
    const destinationId = await createDestination(t, {
      sourceId: src.id,
      webhooks: [{ url: gone.url }, { url: flaky.url }],
    });

    await sendTracking(t, src.writeKey, '/v1/track', { userId: 'u', event: 'First', messageId: 'm-first' });
    await eventually(() => flaky.requests.length === 2 || undefined, {
      what: 'the retry reaching the second URL',
    });
    expect(gone.requests).toHaveLength(1);

    const view = await t.admin<{ settings: { webhooks: { url: string; disabled?: { reason: string } }[] } }>(
      'GET',
      `/api/v1/destinations/${destinationId}`,
    );
    expect(view.body.settings.webhooks[0]!.disabled?.reason).toBe('http_410');
    expect(view.body.settings.webhooks[1]!.disabled).toBeUndefined();

    await sendTracking(t, src.writeKey, '/v1/track', { userId: 'u', event: 'Second', messageId: 'm-second' });
    await eventually(() => flaky.requests.length === 3 || undefined, { what: 'the next event' });
    expect(gone.requests).toHaveLength(1);
  });

  it("does not let a failing destination's retries delay another destination's first attempts", async () => {
    const t = await app({ HOOKLINE_RETRY_SCHEDULE: '200ms,400ms', HOOKLINE_RETRY_CUTOFF: '5s' });
    const src = await createSource(t);
    const failing = await receiver(() => 'hang');
    const healthy = await receiver();
    const noisy = await createSource(t, 'noisy');
    await createDestination(t, { sourceId: noisy.id, webhooks: [{ url: failing.url }] });
    await createDestination(t, { sourceId: src.id, webhooks: [{ url: healthy.url }] });
    // Fill the failing destination's lanes and delay topics with work.
    await sendTracking(t, noisy.writeKey, '/v1/batch', {
      batch: Array.from({ length: 200 }, (_, i) => ({ type: 'track', userId: `n${i}`, event: 'Noise' })),
    });
    await eventually(() => failing.requests.length > 0 || undefined, {
      what: 'the failing destination busy',
    });
    const sentAt = Date.now();
    await sendTracking(t, src.writeKey, '/v1/track', {
      userId: 'u',
      event: 'Important',
      messageId: 'm-important',
    });
    await eventually(() => healthy.requests.length === 1 || undefined, { what: 'the healthy delivery' });
    expect(healthy.requests[0]!.atMs - sentAt).toBeLessThan(2_000);
  });
});

async function lag(t: TestApp, groupId: string): Promise<number> {
  const topics = (await t.app.parts.admin.listTopics()).filter((name) =>
    name.startsWith(`${t.prefix}.retry.`),
  );
  let total = 0;
  for (const topic of topics) total += await uncommittedRecords(t, groupId, topic);
  return total;
}

async function deadLetters(t: TestApp): Promise<DeliveryTask[] | undefined> {
  const records = await readTopic(t, `${t.prefix}.dlq`);
  const tasks = await Promise.all(records.map((v) => decodeTask(t.app.parts.avro, v)));
  return tasks.length > 0 ? tasks : undefined;
}
