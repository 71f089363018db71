import type { ChildProcess } from 'node:child_process';
import { startTestApp, uniquePrefix, type TestApp } from '../support/app';
import { eventually } from '../support/eventually';
import { createDestination, createSource, sendTracking } from '../support/hookline';
import { childEnv, exited, spawnHookline } from '../support/process';
import { startReceiver, type Receiver } from '../support/receiver';
import { unfinishedEvents } from '../support/topics';

const EVENTS = 20;

/**
 * The default mode: one process routes and delivers, making first attempts straight from
 * hookline.events (HOOKLINE_DIRECT_DELIVERY). An event fans out to two destinations; one answers,
 * the other hangs. Killed with SIGKILL there, the process leaves every event uncommitted. The
 * process that takes its partitions over routes them again, and skips the destination the dead
 * one had reached (its attempt records say so: DeliveredLookup.byOffset, FirstAttempts.takeOver),
 * so that destination gets each event once while the other still gets every one: whether the
 * router group had committed the partitions before, or never had (the crash came before the first
 * event was finished).
 */
describe('router + worker process killed between an event’s deliveries', () => {
  let t: TestApp;
  let reached: Receiver;
  let hung: Receiver;
  const children: ChildProcess[] = [];

  afterEach(async () => {
    for (const c of children.splice(0)) {
      c.kill('SIGKILL');
      await exited(c);
    }
    await reached?.close();
    await hung?.close();
    await t?.stop();
  });

  it.each([
    { committedBefore: false, warmUp: 0 },
    { committedBefore: true, warmUp: 30 },
  ])(
    'its successor delivers what it had not, and nothing it had again (committed before: $committedBefore)',
    async ({ warmUp }) => {
      const prefix = uniquePrefix();
      t = await startTestApp({ HOOKLINE_TOPIC_PREFIX: prefix, HOOKLINE_ROLES: 'ingest' });
      reached = await startReceiver(() => ({ status: 200 }));
      hung = await startReceiver((req) =>
        req.body.toString().includes('"split-') ? 'hang' : { status: 200 },
      );
      const src = await createSource(t);
      await createDestination(t, { sourceId: src.id, webhooks: [{ url: reached.url }] });
      await createDestination(t, { sourceId: src.id, webhooks: [{ url: hung.url }] });
      const env = childEnv(
        { prefix, roles: 'router,worker', adminToken: 'router-token' },
        // The hung requests must still be open when the process dies, not timed out and retried.
        { HOOKLINE_DELIVERY_TIMEOUT: '60s', HOOKLINE_DIRECT_DELIVERY: 'true' },
      );

      const first = spawnHookline(env);
      children.push(first);
      if (warmUp > 0) {
        const batch = Array.from({ length: warmUp }, (_, i) => ({
          type: 'track',
          userId: `warm-${i}`,
          event: 'Warm',
        }));
        expect((await sendTracking(t, src.writeKey, '/v1/batch', { batch })).status).toBe(200);
        const warmedUp = async () => hung.requests.length === warmUp && (await unfinishedEvents(t)) === 0;
        await eventually(async () => (await warmedUp()) || undefined, {
          what: 'the warm-up delivered and committed',
          timeoutMs: 60_000,
        });
      }
      const ids = Array.from({ length: EVENTS }, (_, i) => `split-${i}`);
      const batch = ids.map((messageId, i) => ({
        type: 'track',
        userId: `user-${i}`,
        event: 'Split',
        messageId,
      }));
      expect((await sendTracking(t, src.writeKey, '/v1/batch', { batch })).status).toBe(200);

      const inFlight = () => hung.requests.length - warmUp;
      await eventually(
        () => (reached.requests.length - warmUp === EVENTS && inFlight() === EVENTS) || undefined,
        {
          what: 'every event delivered to one destination and in flight to the other',
          timeoutMs: 60_000,
        },
      );
      // The delivered attempts are on hookline.attempts (the hung ones have none yet).
      const { admin } = t.app.parts;
      await eventually(
        async () => {
          const ends = await admin.fetchTopicOffsets(`${prefix}.attempts`);
          return ends.reduce((n, p) => n + Number(p.high), 0) >= 2 * warmUp + EVENTS || undefined;
        },
        { what: `${EVENTS} attempt records` },
      );
      first.kill('SIGKILL');
      await exited(first);

      hung.respondWith(() => ({ status: 200 }));
      const hungBefore = hung.requests.length;
      children.push(spawnHookline(env));
      const messageIds = (r: Receiver, from = 0) =>
        r.requests.slice(from).map((q) => JSON.parse(q.body.toString()).messageId as string);
      await eventually(() => new Set(messageIds(hung, hungBefore)).size === EVENTS || undefined, {
        what: `all ${EVENTS} events at the destination that hung`,
        timeoutMs: 90_000,
      });
      expect([...new Set(messageIds(hung, hungBefore))].sort()).toEqual([...ids].sort());
      // Every event finished (committed by the successor): nothing is left to reach either destination.
      await eventually(async () => (await unfinishedEvents(t)) === 0 || undefined, {
        what: 'every event committed',
        timeoutMs: 30_000,
      });
      // Each event reached the other destination once: the successor skipped it.
      expect(messageIds(reached, warmUp).sort()).toEqual([...ids].sort());
    },
    240_000,
  );
});
