import { Kafka, type Consumer } from 'kafkajs';
import { startTestApp, type TestApp } from '../support/app';
import { crashConsumer } from '../support/consumers';
import { announcements, sendWithSegment, userCalls, type Announced } from '../support/audiences';
import { eventually } from '../support/eventually';
import { createDestination, createSource } from '../support/hookline';
import { startReceiver, type Receiver } from '../support/receiver';

/**
 * The audience processor end to end: events sent with the real Segment client, identifies
 * delivered to a real receiver through the normal path (routing, delivery), with windows and the
 * sync scaled down (a 100 ms bucket, a 300 ms sync, evaluated every 100 ms).
 */
type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

let app: TestApp;
let receiver: Receiver;
/** The kafkajs consumers the app made, by group id (to crash the processor's). */
const consumersByGroup = new Map<string, Consumer>();

beforeAll(async () => {
  const makeConsumer = Kafka.prototype.consumer;
  const spy = jest.spyOn(Kafka.prototype, 'consumer').mockImplementation(function (this: Kafka, config) {
    const consumer = makeConsumer.call(this, config);
    consumersByGroup.set(config!.groupId, consumer);
    return consumer;
  });
  app = await startTestApp({
    HOOKLINE_AUDIENCE_SYNC_INTERVAL: '300ms',
    HOOKLINE_AUDIENCE_BUCKET: '100ms',
    HOOKLINE_AUDIENCE_EVALUATE_INTERVAL: '100ms',
  });
  spy.mockRestore();
  receiver = await startReceiver();
});

afterAll(async () => {
  await app?.stop();
  await receiver?.close();
});

async function newSource(name: string) {
  const source = await createSource(app, name);
  await createDestination(app, { sourceId: source.id, webhooks: [{ url: `${receiver.url}/${source.id}` }] });
  return source;
}

const of = (sourceId: string, key: string) =>
  announcements(receiver).filter((a) => a.personas.space_id === sourceId && a.key === key);
const pairs = (list: Announced[]) => list.map((a) => [a.userId, a.value]);
const sorted = (list: unknown[][]) => [...list].sort((a, b) => String(a[0]).localeCompare(String(b[0])));

async function delivered(sourceId: string, count: number) {
  await eventually(
    () => userCalls(receiver).filter((b) => b.userId?.toString().startsWith(sourceId)).length >= count,
    {
      what: `${count} user calls delivered`,
    },
  );
}

/** Waits until the processor has consumed hookline.events up to its end (before any transactional write). */
async function processorCaughtUp() {
  const { admin, topics, config } = app.app.parts;
  await eventually(
    async () => {
      const highs = await admin.fetchTopicOffsets(topics.events);
      const [committed] = await admin.fetchOffsets({
        groupId: `${config.topics.prefix}.audiences`,
        topics: [topics.events],
      });
      const at = (p: number) => committed!.partitions.find((c) => c.partition === p)?.offset;
      return highs.every((h) => h.high === h.low || at(h.partition) === h.high);
    },
    { what: 'the processor caught up with hookline.events' },
  );
}

/** Waits until the computation is live with this many members. */
async function live(path: string, members = 0): Promise<Json> {
  return eventually(
    async () => {
      const res = await app.admin<Json>('GET', path);
      return res.body.state === 'live' && res.body.members === members ? res.body : undefined;
    },
    { timeoutMs: 60_000, what: `${path} live` },
  );
}

describe('audience processor', () => {
  // First: the app has no audience or computed trait yet (the next test creates the first ones).
  it('reads no event while no audience or computed trait exists, its position following the topic', async () => {
    const { topics, config } = app.app.parts;
    const consumer = consumersByGroup.get(`${config.topics.prefix}.audiences`)!;
    let eventBatches = 0;
    const stopCounting = consumer.on(consumer.events.START_BATCH_PROCESS, ({ payload }) => {
      if (payload.topic === topics.events) eventBatches++;
    });
    const source = await newSource('idle');
    await sendWithSegment(app.baseUrl, source.writeKey, [
      { type: 'identify', userId: `${source.id}-u1`, traits: { plan: 'pro' } },
      { type: 'track', userId: `${source.id}-u2`, event: 'Order Completed' },
    ]);
    await delivered(source.id, 2);
    // Its committed position reaches the end (the consumer lag stays what reading would leave).
    await processorCaughtUp();
    expect(eventBatches).toBe(0);
    stopCounting();
    // ... and hookline_consumer_lag shows it (0 on hookline.events), for both of the group's topics.
    const { metrics } = app.app.parts;
    await eventually(
      async () => {
        const values = (await metrics.getSingleMetric('hookline_consumer_lag')!.get()).values.filter(
          (v) => v.labels.group === `${config.topics.prefix}.audiences`,
        );
        const on = (topic: string) => values.filter((v) => v.labels.topic === topic);
        return (
          on(topics.audienceCommands).length > 0 &&
          on(topics.events).length > 0 &&
          on(topics.events).every((v) => v.value === 0)
        );
      },
      { what: "the audiences group's consumer lag, 0 on hookline.events" },
    );
  });

  it('creation sends one identify per member, then only joins and leaves; a computed trait sends changes', async () => {
    const source = await newSource('shop');
    const u = (n: number) => `${source.id}-u${n}`;
    await sendWithSegment(app.baseUrl, source.writeKey, [
      { type: 'identify', userId: u(1), traits: { plan: 'pro' } },
      { type: 'identify', userId: u(2), traits: { plan: 'free' } },
      { type: 'identify', userId: u(3), traits: { plan: 'pro' } },
      { type: 'track', userId: u(1), event: 'Order Completed', properties: { total: 10 } },
      { type: 'track', userId: u(1), event: 'Order Completed', properties: { total: 5 } },
    ]);
    await delivered(source.id, 5);
    // The audience is created after the processor went past its users' events: found in history.
    await processorCaughtUp();

    const created = await app.admin<Json>('POST', '/api/v1/audiences', {
      sourceId: source.id,
      name: 'Pro Users',
      rule: { trait: { name: 'plan', equals: 'pro' } },
    });
    expect(created.status).toBe(201);
    await live(`/api/v1/audiences/${created.body.id}`, 2);
    await eventually(() => of(source.id, 'pro_users').length >= 2);
    expect(sorted(pairs(of(source.id, 'pro_users')))).toEqual([
      [u(1), true],
      [u(3), true],
    ]);
    expect(of(source.id, 'pro_users')[0]!.personas).toEqual({
      computation_class: 'audience',
      computation_id: created.body.id,
      computation_key: 'pro_users',
      namespace: 'spaces',
      space_id: source.id,
    });

    // Joins and leaves from new events.
    await sendWithSegment(app.baseUrl, source.writeKey, [
      { type: 'identify', userId: u(2), traits: { plan: 'pro' } },
      { type: 'identify', userId: u(1), traits: { plan: 'free' } },
      { type: 'identify', userId: u(3), traits: { plan: 'pro', name: 'unchanged membership' } },
    ]);
    await eventually(() => of(source.id, 'pro_users').length >= 4, { what: 'join and leave' });
    expect(sorted(pairs(of(source.id, 'pro_users').slice(2)))).toEqual([
      [u(1), false],
      [u(2), true],
    ]);

    // A computed trait: every user with a value on creation, then one identify per change.
    const trait = await app.admin<Json>('POST', '/api/v1/computed-traits', {
      sourceId: source.id,
      name: 'Order Count',
      compute: { count: { event: 'Order Completed' } },
    });
    expect(trait.status).toBe(201);
    await live(`/api/v1/computed-traits/${trait.body.id}`, 1);
    await eventually(() => of(source.id, 'order_count').length >= 1);
    expect(pairs(of(source.id, 'order_count'))).toEqual([[u(1), 2]]);
    await sendWithSegment(app.baseUrl, source.writeKey, [
      { type: 'track', userId: u(1), event: 'Order Completed' },
      { type: 'track', userId: u(1), event: 'Cart Viewed' },
    ]);
    await eventually(() => of(source.id, 'order_count').length >= 2, { what: 'the changed count' });
    await delivered(source.id, 10);
    expect(pairs(of(source.id, 'order_count'))).toEqual([
      [u(1), 2],
      [u(1), 3],
    ]);
    expect(of(source.id, 'pro_users')).toHaveLength(4);
  });

  it('a user leaves when their event leaves a (scaled-down) window', async () => {
    const source = await newSource('window');
    const created = await app.admin<Json>('POST', '/api/v1/audiences', {
      sourceId: source.id,
      name: 'Recent Buyers',
      rule: { event: { name: 'Order Completed', withinHours: 0.001 } }, // 3.6 s
    });
    await live(`/api/v1/audiences/${created.body.id}`);
    await sendWithSegment(app.baseUrl, source.writeKey, [
      { type: 'track', userId: `${source.id}-w`, event: 'Order Completed' },
    ]);
    await eventually(() => of(source.id, 'recent_buyers').length >= 2, {
      timeoutMs: 30_000,
      what: 'join then leave',
    });
    expect(pairs(of(source.id, 'recent_buyers'))).toEqual([
      [`${source.id}-w`, true],
      [`${source.id}-w`, false],
    ]);
  });

  it('a synced audience: a full list, then a change; a sync that changes nothing sends nothing', async () => {
    const source = await newSource('crm');
    const u = (n: string) => `${source.id}-${n}`;
    const created = await app.admin<Json>('POST', '/api/v1/audiences', {
      sourceId: source.id,
      name: 'CRM VIPs',
    });
    await live(`/api/v1/audiences/${created.body.id}`);
    const sync = (body: unknown) =>
      app.admin<Json>('POST', `/api/v1/audiences/${created.body.id}/sync`, body);

    expect((await sync({ members: [u('a'), u('b')] })).status).toBe(202);
    await eventually(() => of(source.id, 'crm_vips').length >= 2);
    expect((await sync({ members: [u('b'), u('c')] })).status).toBe(202);
    await eventually(() => of(source.id, 'crm_vips').length >= 4);
    expect(sorted(pairs(of(source.id, 'crm_vips').slice(2)))).toEqual([
      [u('a'), false],
      [u('c'), true],
    ]);
    expect((await sync({ members: [u('c'), u('b')] })).status).toBe(202);
    expect((await sync({ add: [u('d')], remove: [u('b')] })).status).toBe(202);
    await eventually(() => of(source.id, 'crm_vips').length >= 6);
    expect(sorted(pairs(of(source.id, 'crm_vips').slice(4)))).toEqual([
      [u('b'), false],
      [u('d'), true],
    ]);
    expect((await app.admin<Json>('GET', `/api/v1/audiences/${created.body.id}`)).body.members).toBe(2);
    const rule = await app.admin<Json>('POST', '/api/v1/audiences', {
      sourceId: source.id,
      name: 'Ruled',
      rule: { trait: { name: 'plan', exists: true } },
    });
    expect(
      (await app.admin<Json>('POST', `/api/v1/audiences/${rule.body.id}/sync`, { members: [] })).status,
    ).toBe(409);
  });

  it('goes on after a crash of its consumer that kafkajs does not restart from', async () => {
    const source = await newSource('crash');
    const created = await app.admin<Json>('POST', '/api/v1/audiences', {
      sourceId: source.id,
      name: 'Viewers',
      rule: { event: { name: 'Page Viewed' } },
    });
    await live(`/api/v1/audiences/${created.body.id}`);
    const consumer = consumersByGroup.get(`${app.app.parts.config.topics.prefix}.audiences`)!;
    expect(await crashConsumer(consumer)).toBe(false); // kafkajs leaves it stopped

    await sendWithSegment(app.baseUrl, source.writeKey, [
      { type: 'track', userId: `${source.id}-v`, event: 'Page Viewed' },
    ]);
    await eventually(() => of(source.id, 'viewers').length >= 1, {
      timeoutMs: 30_000,
      what: 'a join from an event sent after the crash',
    });
    expect(pairs(of(source.id, 'viewers'))).toEqual([[`${source.id}-v`, true]]);
  });
});
