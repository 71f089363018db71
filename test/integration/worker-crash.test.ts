import type { ChildProcess } from 'node:child_process';
import { startTestApp, uniquePrefix, type TestApp } from '../support/app';
import { eventually } from '../support/eventually';
import { createDestination, createSource, sendTracking } from '../support/hookline';
import { childEnv, exited, spawnHookline } from '../support/process';
import { startReceiver, type Receiver } from '../support/receiver';

/**
 * Offsets are committed only after delivery or durable hand-off: a worker killed with SIGKILL
 * in the middle of a batch loses nothing; its replacement delivers every event at least once.
 */
describe('worker processes', () => {
  let t: TestApp;
  let r: Receiver;
  const children: ChildProcess[] = [];

  afterAll(async () => {
    for (const c of children) c.kill('SIGKILL');
    await Promise.all(children.map(exited));
  });

  afterEach(async () => {
    await r?.close();
    await t?.stop();
  });

  /** An ingest+router app in the test, and the env of worker processes on the same topics. */
  async function setUp(receiverDelayMs: number) {
    const prefix = uniquePrefix();
    t = await startTestApp({ HOOKLINE_TOPIC_PREFIX: prefix, HOOKLINE_ROLES: 'ingest,router' });
    r = await startReceiver(() => ({ status: 200, delayMs: receiverDelayMs }));
    const src = await createSource(t);
    await createDestination(t, { sourceId: src.id, webhooks: [{ url: r.url }] });
    const workerEnv = childEnv(
      { prefix, roles: 'worker', adminToken: 'worker-token' },
      { HOOKLINE_DESTINATION_CONCURRENCY: '8' },
    );
    return { src, workerEnv };
  }

  it('killed with SIGKILL mid-batch: after a restart every event is delivered at least once', async () => {
    const { src, workerEnv } = await setUp(40);
    const first = spawnHookline(workerEnv);
    children.push(first);

    const total = 400;
    const ids = Array.from({ length: total }, (_, i) => `crash-${i}`);
    const batch = ids.map((messageId, i) => ({
      type: 'track',
      userId: `user-${i % 37}`,
      event: 'Crash',
      messageId,
    }));
    expect((await sendTracking(t, src.writeKey, '/v1/batch', { batch })).status).toBe(200);

    // Kill it while work is in flight: some delivered, most not.
    await eventually(() => r.requests.length >= 40 || undefined, {
      what: 'the first deliveries',
      timeoutMs: 60_000,
    });
    first.kill('SIGKILL');
    await exited(first);
    const deliveredBeforeKill = r.requests.length;
    expect(deliveredBeforeKill).toBeLessThan(total);

    children.push(spawnHookline(workerEnv));
    const seen = () => new Set(r.requests.map((q) => JSON.parse(q.body.toString()).messageId as string));
    await eventually(() => seen().size === total || undefined, {
      what: `all ${total} events delivered`,
      timeoutMs: 90_000,
    });
    expect([...seen()].sort()).toEqual([...ids].sort());
  });

  it('stopped with SIGTERM mid-batch: finishes in-flight deliveries, commits, exits 0; no duplicates', async () => {
    const { src, workerEnv } = await setUp(300);
    const first = spawnHookline(workerEnv);
    children.push(first);
    const total = 60;
    const ids = Array.from({ length: total }, (_, i) => `term-${i}`);
    const batch = ids.map((messageId, i) => ({
      type: 'track',
      userId: `user-${i}`,
      event: 'Term',
      messageId,
    }));
    expect((await sendTracking(t, src.writeKey, '/v1/batch', { batch })).status).toBe(200);

    await eventually(() => r.requests.length >= 8 || undefined, {
      what: 'deliveries in progress',
      timeoutMs: 60_000,
    });
    first.kill('SIGTERM');
    expect(await exited(first)).toBe(0);

    children.push(spawnHookline(workerEnv));
    const messageIds = () => r.requests.map((q) => JSON.parse(q.body.toString()).messageId as string);
    await eventually(() => new Set(messageIds()).size === total || undefined, {
      what: `all ${total} events`,
      timeoutMs: 90_000,
    });
    // Everything the first worker had started was finished and committed before it exited.
    expect(messageIds()).toHaveLength(total);
  });
});
