import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { decodeTask } from '../../src/records/delivery-task';
import type { TestApp } from '../support/app';
import { eventually } from '../support/eventually';
import { createDestination, createSource, sendTracking } from '../support/hookline';
import { testScope } from '../support/scope';
import { readTopic, unfinishedEvents } from '../support/topics';

/**
 * Every failure shape at once, beside one healthy destination: the healthy one gets every event,
 * and every task of the failing ones is handed on (delivered, waiting in a delay topic, or dead-
 * lettered with a reason), none lost. How fast the healthy one is served is the bench's job
 * (isolation scenarios), not a timed assertion here.
 */
describe('isolation from every failure shape', () => {
  const { app, receiver } = testScope();

  it('serves the healthy destination fully and hands every other task on', async () => {
    const t = await app({ HOOKLINE_RETRY_SCHEDULE: '1h', HOOKLINE_RETRY_CUTOFF: '4h' });
    const src = await createSource(t);
    const healthy = await receiver(() => ({ status: 200 }));
    const plain = await receiver(() => ({ status: 200 }));
    const shapes: Record<string, string> = {
      hangs: (await receiver(() => 'hang')).url,
      slow: (await receiver(() => ({ status: 200, delayMs: 4_900 }))).url,
      refused: `http://127.0.0.1:${await freePort()}/hook`,
      dns: 'http://no-such-host.invalid/hook',
      tls: plain.url.replace('http://', 'https://'),
      fails: (await receiver(() => ({ status: 500 }))).url,
      throttles: (await receiver(() => ({ status: 429, headers: { 'retry-after': '60' } }))).url,
      drops: (await receiver(() => 'drop')).url,
    };
    const healthyId = await createDestination(t, { sourceId: src.id, webhooks: [{ url: healthy.url }] });
    const failing = new Map<string, string>();
    for (const [name, url] of Object.entries(shapes))
      failing.set(await createDestination(t, { sourceId: src.id, name, webhooks: [{ url }] }), name);

    const events = 100;
    for (let start = 0; start < events; start += 50) {
      const batch = Array.from({ length: 50 }, (_, i) => ({
        type: 'track',
        userId: `u${(start + i) % 20}`,
        event: 'Shape',
        messageId: `shape-${start + i}`,
      }));
      expect((await sendTracking(t, src.writeKey, '/v1/batch', { batch })).status).toBe(200);
    }

    await eventually(() => healthy.requests.length >= events || undefined, {
      what: 'every event at the healthy destination',
      timeoutMs: 45_000,
    });
    // Every task handed on: the router, which makes first attempts, has committed every event.
    await eventually(async () => ((await unfinishedEvents(t)) === 0 ? true : undefined), {
      what: 'every delivery task handed on',
      timeoutMs: 45_000,
    });
    const handedOn = await handedOnTasks(t);
    for (const [id, name] of failing) {
      const messageIds = handedOn.get(id) ?? new Set<string>();
      if (name === 'slow') continue; // answers within the timeout: delivered, or deferred while slow
      expect({ name, handedOn: messageIds.size }).toEqual({ name, handedOn: events });
    }
    expect(handedOn.get(healthyId)).toBeUndefined(); // nothing of the healthy one waits or died
  }, 120_000);
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Message ids per destination found in the delay topics or the dead-letter topic. */
async function handedOnTasks(t: TestApp): Promise<Map<string, Set<string>>> {
  const topics = (await t.app.parts.admin.listTopics()).filter(
    (n) => n.startsWith(`${t.prefix}.retry.`) || n === `${t.prefix}.dlq`,
  );
  const byDestination = new Map<string, Set<string>>();
  for (const topic of topics) {
    for (const value of await readTopic(t, topic)) {
      const task = await decodeTask(t.app.parts.avro, value).catch(() => undefined);
      if (!task) continue;
      let ids = byDestination.get(task.destinationId);
      if (!ids) byDestination.set(task.destinationId, (ids = new Set()));
      ids.add(task.messageId);
    }
  }
  return byDestination;
}
