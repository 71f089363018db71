import { startTestApp, type TestApp } from '../support/app';
import { eventually } from '../support/eventually';
import { createDestination, createSource, sendTracking } from '../support/hookline';
import { startReceiver, type Receiver } from '../support/receiver';

/**
 * Routing end to end on the real broker: integrations rules, per-user order on first attempts and
 * de-duplication of a client's retries, from the tracking API to real receivers on 127.0.0.1.
 */
describe('routing to webhooks', () => {
  let t: TestApp;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    t = await startTestApp();
  });

  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await t.stop();
  });

  async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
    const r = await startReceiver(...args);
    receivers.push(r);
    return r;
  }

  /** Each test gets a source of its own, so other tests' destinations never see its events. */
  async function freshSource() {
    return createSource(t, `source ${Math.random()}`);
  }

  it('honours integrations: All:false sends nothing, All:false with Webhooks:true sends', async () => {
    const src = await freshSource();
    const r = await receiver();
    await createDestination(t, { sourceId: src.id, webhooks: [{ url: r.url }] });
    await sendTracking(t, src.writeKey, '/v1/batch', {
      batch: [
        { type: 'track', userId: 'u', event: 'Off', messageId: 'm-off', integrations: { All: false } },
        {
          type: 'track',
          userId: 'u',
          event: 'On',
          messageId: 'm-on',
          integrations: { All: false, Webhooks: true },
        },
        { type: 'track', userId: 'u', event: 'Off2', messageId: 'm-off2', integrations: { Webhooks: false } },
        { type: 'track', userId: 'u', event: 'Last', messageId: 'm-last' },
      ],
    });
    // Same user, same partition, routed in order: once m-last arrived, the others were decided.
    await eventually(() => r.requests.some((q) => q.body.includes('m-last')) || undefined, {
      what: 'the last event',
    });
    const ids = r.requests.map((q) => JSON.parse(q.body.toString()).messageId as string).sort();
    expect(ids).toEqual(['m-last', 'm-on']);
  });

  it("keeps one user's events in order on their first attempt", async () => {
    const src = await freshSource();
    const r = await receiver();
    await createDestination(t, { sourceId: src.id, webhooks: [{ url: r.url }] });
    const ids = Array.from({ length: 40 }, (_, i) => `m-order-${i}`);
    // Three requests, as a client flushing its queue would send them.
    for (const chunk of [ids.slice(0, 10), ids.slice(10, 25), ids.slice(25)]) {
      const batch = chunk.map((messageId) => ({
        type: 'track',
        userId: 'ordered-user',
        event: 'Step',
        messageId,
      }));
      expect((await sendTracking(t, src.writeKey, '/v1/batch', { batch })).status).toBe(200);
    }
    await eventually(() => r.requests.length === ids.length || undefined, { what: 'all 40 events' });
    expect(r.requests.map((q) => JSON.parse(q.body.toString()).messageId)).toEqual(ids);
  });

  it('routes a client retry of the same messageId once', async () => {
    const src = await freshSource();
    const r = await receiver();
    await createDestination(t, { sourceId: src.id, webhooks: [{ url: r.url }] });
    const call = { userId: 'dup-user', event: 'Retried', messageId: 'm-dup' };
    await sendTracking(t, src.writeKey, '/v1/track', call);
    await sendTracking(t, src.writeKey, '/v1/track', call);
    await sendTracking(t, src.writeKey, '/v1/track', {
      userId: 'dup-user',
      event: 'After',
      messageId: 'm-after',
    });
    await eventually(() => r.requests.some((q) => q.body.includes('m-after')) || undefined, {
      what: 'the later event',
    });
    expect(r.requests.filter((q) => q.body.includes('m-dup'))).toHaveLength(1);
  });
});
