import { randomBytes } from 'node:crypto';
import { stringifyJson } from '../../src/events/json';
import { ClientClosedError, MAX_BATCH_BYTES, MessageTooLargeError } from '../../src/producer';
import { eventually } from '../support/eventually';
import { ManualTime } from '../unit/producer/manual-time';
import { trackWaitingForRoom } from '../support/paced-track';
import { useProducerHarness } from '../support/producer-harness';

/**
 * The producer library (`hookline/producer`) on a real Kafka + schema registry: records, batching,
 * limits and close, against a whole Hookline started in the test.
 */
describe('producer library', () => {
  const h = useProducerHarness();
  const { createSource, connect, capturedLogger, postApi, withMessageId, waitForEvents } = h;

  it('publishes, for each method, the record the tracking API writes for the same call', async () => {
    const source = await createSource();
    const analytics = await connect(source.writeKey, { flushAt: 1 });
    expect(analytics.sourceId).toBe(source.id);
    const run = randomBytes(4).toString('hex');
    const context = {
      ip: '203.0.113.9',
      library: { name: 'test' },
      locale: 'de-CH',
      nested: { list: [1, 2.5, 'ü'] },
    };
    const integrations = { All: false, Webhooks: true };
    const at = '2024-02-03T04:05:06.789Z';
    const calls = [
      [
        'identify',
        {
          userId: 'u-1',
          anonymousId: 'a-1',
          traits: { plan: 'pro', seats: 3n, email: 'x@example.com' },
          context,
        },
      ],
      [
        'track',
        {
          userId: 'u-1',
          event: 'Order Completed ☕',
          properties: { orderId: 12345678901234567890n, total: 19.99, items: [{ sku: 'A' }] },
          context,
          integrations,
        },
      ],
      [
        'page',
        {
          anonymousId: 'a-2',
          name: 'Pricing',
          category: 'Docs',
          properties: { url: 'https://x.test/p', title: 'P' },
        },
      ],
      ['screen', { userId: 'u-2', name: 'Cart', properties: { items: 2 } }],
      [
        'group',
        {
          userId: 'u-1',
          groupId: 'g-1',
          traits: { name: 'Acme', employees: 250 },
          integrations: { Webhooks: false },
        },
      ],
      ['alias', { userId: 'u-1', previousId: 'a-1', context }],
    ] as const;

    for (const [type, call] of calls) {
      const messageId = `${run}-${type}`;
      await postApi(`/v1/${type}`, source.writeKey, { ...call, messageId, timestamp: at });
      await waitForEvents([messageId]);
      (analytics[type] as (m: object) => string)({ ...call, messageId, timestamp: new Date(at) });
      const [fromApi, fromLibrary] = await eventually(() => {
        const both = withMessageId(messageId);
        return both.length === 2 ? both : undefined;
      });
      const { receivedAt: apiReceivedAt, ...api } = fromApi!.event;
      const { receivedAt: libraryReceivedAt, ...library } = fromLibrary!.event;
      expect(library).toEqual(api);
      expect(stringifyJson(library)).toBe(stringifyJson(api)); // exact: key order, bigint text
      expect(fromLibrary!.key).toBe(fromApi!.key);
      expect(fromLibrary!.partition).toBe(fromApi!.partition);
      expect(fromLibrary!.schemaId).toBe(fromApi!.schemaId);
      expect(Date.parse(libraryReceivedAt)).toBeGreaterThanOrEqual(Date.parse(apiReceivedAt));
    }
  });

  it('flushes every flushAt calls and flushAfterMs after the last flush (injected clock, no sleeps)', async () => {
    const source = await createSource();
    const time = new ManualTime(new Date().toISOString());
    const { logger, lines } = capturedLogger();
    const analytics = await connect(source.writeKey, {
      flushAt: 5,
      flushAfterMs: 5_000,
      clock: time,
      scheduler: time,
      logger,
    });
    const flushes = () => lines.filter((l) => l.msg === 'flush').map((l) => l.reason);

    const first = Array.from({ length: 4 }, (_, i) => analytics.track({ userId: 'u', event: `count-${i}` }));
    expect(flushes()).toEqual([]);
    first.push(analytics.track({ userId: 'u', event: 'count-4' }));
    expect(flushes()).toEqual(['count']);
    await waitForEvents(first);

    const second = [
      analytics.track({ userId: 'u', event: 'timer-0' }),
      analytics.track({ userId: 'u', event: 'timer-1' }),
    ];
    time.advance(4_999);
    expect(flushes()).toEqual(['count']);
    expect(analytics.queued).toBe(2);
    time.advance(1);
    expect(flushes()).toEqual(['count', 'timer']);
    const events = await waitForEvents(second);
    expect(events.map((e) => e.event.receivedAt)).toEqual([
      new Date(time.now() - 5_000).toISOString(),
      new Date(time.now() - 5_000).toISOString(),
    ]);
    await eventually(() => analytics.queued === 0);
  });

  it('refuses a call over 32 KB with MessageTooLargeError', async () => {
    const source = await createSource();
    const analytics = await connect(source.writeKey);
    expect(() =>
      analytics.track({ userId: 'u', event: 'big', properties: { blob: 'x'.repeat(33 * 1024) } }),
    ).toThrow(MessageTooLargeError);
    expect(analytics.queued).toBe(0);
  });

  it('with flushAt 1 sends each call on its own, even calls made while a send is in flight', async () => {
    const source = await createSource();
    const { logger, lines } = capturedLogger();
    const analytics = await connect(source.writeKey, { flushAt: 1, logger });
    // Synchronous calls: the first goes at once, the other four queue while it is in flight.
    const ids = Array.from({ length: 5 }, (_, i) =>
      analytics.track({ userId: 'u1', event: 'one', properties: { i } }),
    );
    await analytics.flush();
    // One batch of one call per send; the library has one send in flight, so each is one produce request.
    expect(lines.filter((l) => l.msg === 'batch acknowledged').map((b) => b.messages)).toEqual([
      1, 1, 1, 1, 1,
    ]);
    const events = await waitForEvents(ids);
    expect(events.map((e) => e.event.messageId)).toEqual(ids);
    await analytics.close();
  });

  it('splits what is queued into batches of at most 500 KB', async () => {
    const source = await createSource();
    const { logger, lines } = capturedLogger();
    const analytics = await connect(source.writeKey, { flushAt: 100, logger });
    const blob = 'y'.repeat(30 * 1024);
    const ids = Array.from({ length: 17 }, (_, i) =>
      analytics.track({ userId: `u${i % 3}`, event: 'big', properties: { blob, i } }),
    );
    await analytics.flush();
    const batches = lines.filter((l) => l.msg === 'batch acknowledged');
    expect(batches.map((b) => b.messages)).toEqual([16, 1]);
    for (const b of batches) expect(b.bytes).toBeLessThanOrEqual(MAX_BATCH_BYTES);
    const events = await waitForEvents(ids);
    expect(events.map((e) => (e.event.type === 'track' ? e.event.properties?.i : undefined))).toEqual(
      Array.from({ length: 17 }, (_, i) => i),
    );
  });

  it('close() delivers everything queued, then refuses calls', async () => {
    const source = await createSource();
    const analytics = await connect(source.writeKey, { flushAt: 1_000, flushAfterMs: 600_000 });
    const ids = Array.from({ length: 300 }, (_, i) =>
      analytics.track({ anonymousId: `anon-${i % 7}`, event: `e${i}` }),
    );
    expect(analytics.queued).toBe(300);
    await analytics.close();
    expect(analytics.queued).toBe(0);
    expect(() => analytics.track({ userId: 'u', event: 'late' })).toThrow(ClientClosedError);
    await waitForEvents(ids);
  });

  it('a caller that answers QueueFullError with waitForRoom() gets every call written, in order', async () => {
    const source = await createSource();
    const analytics = await connect(source.writeKey, { flushAt: 10, maxQueuedMessages: 40 });
    const ids: string[] = [];
    const counter = { waits: 0 };
    for (let i = 0; i < 400; i++)
      ids.push(
        await trackWaitingForRoom(
          analytics,
          { userId: 'one-user', event: 'paced', properties: { i } },
          counter,
        ),
      );
    await analytics.close();
    expect(counter.waits).toBeGreaterThan(0);
    await waitForEvents(ids);
    // One user, one partition: the events topic holds them in the order of the calls.
    const wanted = new Set(ids);
    expect(h.consumed.filter((c) => wanted.has(c.event.messageId)).map((c) => c.event.messageId)).toEqual(
      ids,
    );
  });
});
