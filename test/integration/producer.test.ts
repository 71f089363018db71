/**
 * The producer library (`hookline/producer`) on a real Kafka + schema registry, against a whole
 * Hookline started in the test (all roles, private topic prefix).
 */
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import type { Consumer } from 'kafkajs';
import { unframe } from '../../src/avro/wire';
import { stringifyJson } from '../../src/events/json';
import type { HooklineEvent } from '../../src/events/types';
import { createLogger } from '../../src/observability/logger';
import {
  Analytics,
  ClientClosedError,
  InvalidWriteKeyError,
  MAX_BATCH_BYTES,
  MessageTooLargeError,
  SourceDisabledError,
  type AnalyticsOptions,
} from '../../src/producer';
import { clusterFromEnv, startTestApp, type TestApp } from '../support/app';
import { eventually } from '../support/eventually';
import { startReceiver, type Receiver } from '../support/receiver';
import { ManualTime } from '../unit/producer/manual-time';

/** A parsed JSON answer; tests read into it freely. */
type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

interface Consumed {
  key: string;
  partition: number;
  schemaId: number;
  event: HooklineEvent;
}

let app: TestApp;
let reader: Consumer;
const consumed: Consumed[] = [];
const clients: Analytics[] = [];
const receivers: Receiver[] = [];

beforeAll(async () => {
  app = await startTestApp();
  const { kafka, events, topics } = app.app.parts;
  reader = kafka.consumer({
    groupId: `${app.prefix}-test-reader-${randomBytes(4).toString('hex')}`,
    maxWaitTimeInMs: 100,
  });
  await reader.connect();
  await reader.subscribe({ topic: topics.events, fromBeginning: true });
  await reader.run({
    eachMessage: async ({ partition, message }) => {
      consumed.push({
        key: message.key!.toString('utf8'),
        partition,
        schemaId: unframe(message.value!).schemaId,
        event: await events.decode(message.value!),
      });
    },
  });
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

afterAll(async () => {
  await reader?.disconnect();
  await app?.stop();
});

async function createSource(name = 'Backend'): Promise<{ id: string; writeKey: string }> {
  const res = await app.admin<Json>('POST', '/api/v1/sources', { name });
  expect(res.status).toBe(201);
  return res.body;
}

/** Connects a client to the test app's cluster and topics; closed after each test. */
async function connect(writeKey: string, options: Partial<AnalyticsOptions> = {}): Promise<Analytics> {
  const cluster = clusterFromEnv();
  const analytics = await Analytics.connect(writeKey, {
    brokers: cluster.kafkaBrokers,
    registry: cluster.schemaRegistryUrl,
    topicPrefix: app.prefix,
    env: {},
    ...options,
  } as AnalyticsOptions);
  clients.push(analytics);
  return analytics;
}

/** A debug logger whose lines the test reads. */
function capturedLogger() {
  const lines: Json[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: createLogger({ level: 'debug', destination }), lines };
}

async function postApi(path: string, writeKey: string, body: unknown): Promise<Json> {
  const res = await fetch(`${app.baseUrl}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${writeKey}:`).toString('base64')}`,
      'content-type': 'application/json',
    },
    body: stringifyJson(body),
  });
  expect(res.status).toBe(200);
  return res.json();
}

const withMessageId = (messageId: string) => consumed.filter((c) => c.event.messageId === messageId);

async function waitForEvents(messageIds: string[], timeoutMs = 20_000): Promise<Consumed[]> {
  return eventually(
    () => {
      const found = messageIds.map((id) => withMessageId(id)[0]);
      return found.every(Boolean) ? (found as Consumed[]) : undefined;
    },
    { timeoutMs, what: `${messageIds.length} events on the events topic` },
  );
}

describe('producer library', () => {
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

  it('refuses an unknown or disabled write key at connect, and calls once the source is disabled', async () => {
    await expect(connect('no-such-key')).rejects.toBeInstanceOf(InvalidWriteKeyError);
    const source = await createSource();
    const analytics = await connect(source.writeKey);
    expect((await app.admin('PATCH', `/api/v1/sources/${source.id}`, { enabled: false })).status).toBe(200);
    await eventually(() => {
      try {
        analytics.track({ userId: 'u', event: 'e' });
        return false;
      } catch (err) {
        return err instanceof SourceDisabledError;
      }
    });
    await expect(connect(source.writeKey)).rejects.toBeInstanceOf(SourceDisabledError);
  });

  it("with transport 'http' sends the same calls through the tracking API", async () => {
    const source = await createSource();
    await expect(
      Analytics.connect('no-such-key', { transport: 'http', endpoint: app.baseUrl, env: {} }),
    ).rejects.toBeInstanceOf(InvalidWriteKeyError);
    const analytics = await Analytics.connect(source.writeKey, {
      transport: 'http',
      endpoint: app.baseUrl,
      env: {},
    });
    clients.push(analytics);
    const ids = [
      analytics.track({ userId: 'h-1', event: 'Via HTTP', properties: { n: 12345678901234567890n } }),
      analytics.alias({ userId: 'h-1', previousId: 'a-9', timestamp: '2024-01-01T00:00:00.000Z' }),
    ];
    await analytics.flush();
    const [track, alias] = await waitForEvents(ids);
    expect(track!.event).toMatchObject({
      type: 'track',
      userId: 'h-1',
      event: 'Via HTTP',
      sourceId: source.id,
    });
    expect(stringifyJson(track!.event.type === 'track' && track!.event.properties)).toBe(
      '{"n":12345678901234567890}',
    );
    expect(track!.event).toHaveProperty('sentAt');
    expect(alias!.event).toMatchObject({
      type: 'alias',
      previousId: 'a-9',
      originalTimestamp: '2024-01-01T00:00:00.000Z',
    });
  });

  it('an event sent through the library reaches a webhook receiver through the normal delivery path', async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const source = await createSource();
    const destination = await app.admin<Json>('POST', '/api/v1/destinations', {
      sourceId: source.id,
      name: 'Receiver',
      enabled: true,
      settings: { webhooks: [{ url: receiver.url }] },
    });
    expect(destination.status).toBe(201);
    const analytics = await connect(source.writeKey, { flushAt: 1 });
    const messageId = analytics.track({
      userId: 'u-hook',
      event: 'Delivered',
      properties: { orderId: 12345678901234567890n },
    });
    await analytics.flush();
    const request = await eventually(
      () => receiver.requests.find((r) => r.body.toString('utf8').includes(messageId)),
      { timeoutMs: 30_000, what: 'the webhook request' },
    );
    const body = request.body.toString('utf8');
    expect(JSON.parse(body)).toMatchObject({
      type: 'track',
      messageId,
      userId: 'u-hook',
      event: 'Delivered',
    });
    expect(body).toContain('"orderId":12345678901234567890');
  });
});
