import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeHoles } from '../../src/kafka/commit-holes';
import { decodeTask } from '../../src/records/delivery-task';
import type { TestApp } from '../support/app';
import { eventually } from '../support/eventually';
import { createDestination, createSource, sendTracking } from '../support/hookline';
import { testScope } from '../support/scope';
import { readTopic, unfinishedEvents } from '../support/topics';

/**
 * Issue 14's duplicates: a first attempt to a destination that does not answer, at the head of an
 * events partition, no longer holds back the commit of the work done after it. One partition, a
 * hung destination and a healthy one: while the hung requests are still open, the router's
 * committed offset (it makes first attempts, HOOKLINE_DIRECT_DELIVERY) is past every event, the
 * ones whose hung task is open listed as holes in its metadata, and the events of a user who was
 * not held up are done; once the hung requests fail, each task is handed on once (one copy in the
 * delay topic) and the holes are gone.
 */
describe('a hung first attempt and the committed offset', () => {
  const { app, receiver } = testScope();
  const held = heldReceiver();
  afterAll(() => held.close());

  it('commits past tasks whose requests still hang, and hands each on once when they fail', async () => {
    const t = await app({
      HOOKLINE_TOPIC_PARTITIONS: '1',
      HOOKLINE_DELIVERY_TIMEOUT: '120s', // the test answers the held requests itself
      HOOKLINE_RETRY_SCHEDULE: '1h',
      HOOKLINE_RETRY_CUTOFF: '4h',
    });
    const src = await createSource(t);
    const healthy = await receiver(() => ({ status: 200 }));
    const hungId = await createDestination(t, {
      sourceId: src.id,
      name: 'hung',
      webhooks: [{ url: await held.url() }],
    });
    await createDestination(t, { sourceId: src.id, name: 'healthy', webhooks: [{ url: healthy.url }] });

    // A second source whose one destination answers: its events come after the hung ones.
    const other = await createSource(t);
    const afterwards = await receiver(() => ({ status: 200 }));
    await createDestination(t, { sourceId: other.id, name: 'after', webhooks: [{ url: afterwards.url }] });

    const events = 5;
    const batch = Array.from({ length: events }, (_, i) => ({
      type: 'track',
      userId: `u${i}`,
      event: 'Held',
      messageId: `held-${i}`,
    }));
    expect((await sendTracking(t, src.writeKey, '/v1/batch', { batch })).status).toBe(200);
    await eventually(() => held.open() === events || undefined, { what: 'every hung request open' });
    const later = batch.map((e) => ({ ...e, messageId: `after-${e.messageId}` }));
    expect((await sendTracking(t, other.writeKey, '/v1/batch', { batch: later })).status).toBe(200);

    await eventually(() => healthy.requests.length === events || undefined, {
      what: 'every event at the healthy destination',
    });
    await eventually(() => afterwards.requests.length === events || undefined, {
      what: 'every later event delivered',
    });
    const whileHung = await eventually(
      async () => {
        const point = await commitPoint(t);
        return point.offset === 2 * events && point.holes.length === events ? point : undefined;
      },
      { what: 'the commit past every event, those of the hung requests as holes' },
    );
    expect(held.open()).toBe(events); // still hanging when the offset moved past them
    expect(whileHung.holes).toEqual([0, 1, 2, 3, 4]);

    held.answerAll(500);
    await eventually(async () => (await unfinishedEvents(t)) === 0 || undefined, { what: 'no hole left' });
    const retried = await eventually(
      async () => {
        const values = await readTopic(t, `${t.prefix}.retry.1h`);
        return values.length >= events ? values : undefined;
      },
      { what: 'the failed tasks in the delay topic' },
    );
    const tasks = await Promise.all(retried.map((v) => decodeTask(t.app.parts.avro, v)));
    expect(tasks.map((task) => [task.destinationId, task.messageId, task.attempts]).sort()).toEqual(
      batch.map((e) => [hungId, e.messageId, 1]).sort(),
    );
    expect(held.requests()).toBe(events);
    expect(healthy.requests).toHaveLength(events);
    expect(afterwards.requests).toHaveLength(events);
  }, 120_000);
});

/** The committed offset of the router group on the (one) events partition, and its holes. */
async function commitPoint(t: TestApp): Promise<{ offset: number; holes: number[] }> {
  const [entry] = await t.app.parts.admin.fetchOffsets({
    groupId: `${t.prefix}.router`,
    topics: [`${t.prefix}.events`],
  });
  const { offset, metadata } = entry!.partitions[0]!;
  return { offset: Number(offset), holes: decodeHoles(Number(offset), metadata) };
}

/** A receiver that holds every request open until the test answers them all. */
function heldReceiver() {
  const open: ServerResponse[] = [];
  let requests = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests++;
      open.push(res);
    });
  });
  const listening = new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: async () => {
      await listening;
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    },
    open: () => open.length,
    requests: () => requests,
    answerAll: (status: number) => {
      for (const res of open.splice(0)) res.writeHead(status).end();
    },
    close: async () => {
      for (const res of open.splice(0)) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
