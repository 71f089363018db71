import { createHmac } from 'node:crypto';
import { startTestApp, type TestApp } from '../support/app';
import { eventually } from '../support/eventually';
import { createDestination, createSource, sendTracking } from '../support/hookline';
import { startReceiver, type Receiver } from '../support/receiver';
import { readTopic, unfinishedEvents } from '../support/topics';
import { decodeTask } from '../../src/records/delivery-task';

/**
 * Delivery end to end on the real broker and registry: tracking API → hookline.events →
 * router → hookline.deliveries → worker → real receivers on 127.0.0.1.
 */
describe('webhook delivery', () => {
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

  it('delivers every payload type byte for byte, signed, with the static headers', async () => {
    const src = await freshSource();
    const r = await receiver();
    const secret = 'top-secret-for-hmac';
    await createDestination(t, {
      sourceId: src.id,
      sharedSecret: secret,
      webhooks: [{ url: r.url, headers: { 'X-Api-Key': 'abc123', 'X-Tenant': 'acme' } }],
    });
    const ts = '2024-05-01T10:00:00.000Z';
    const ctx = { ip: '203.0.113.9', locale: 'fr-FR' };
    const batch = [
      {
        type: 'identify',
        messageId: 'm-identify',
        userId: 'u1',
        traits: { name: 'Zoë', big: 'BIG' },
        timestamp: ts,
        context: ctx,
      },
      {
        type: 'track',
        messageId: 'm-track',
        userId: 'u1',
        anonymousId: 'a1',
        event: 'Order Completed',
        properties: { revenue: 19.9 },
        timestamp: ts,
        context: ctx,
      },
      {
        type: 'page',
        messageId: 'm-page',
        userId: 'u1',
        name: 'Home',
        properties: { path: '/', url: 'https://example.com/' },
        timestamp: ts,
        context: ctx,
      },
      {
        type: 'screen',
        messageId: 'm-screen',
        userId: 'u1',
        name: 'Settings',
        timestamp: ts,
        context: { device: { model: 'Pixel', type: 'android' } },
      },
      {
        type: 'group',
        messageId: 'm-group',
        userId: 'u1',
        groupId: 'g1',
        traits: { plan: 'pro' },
        timestamp: ts,
        context: ctx,
      },
      { type: 'alias', messageId: 'm-alias', userId: 'u2', previousId: 'u1', timestamp: ts, context: ctx },
    ];
    // An integer beyond 2^53, written into the body text so it reaches Hookline exactly as written.
    const text = JSON.stringify({ batch }).replace('"big":"BIG"', '"big":12345678901234567890');
    expect((await sendTracking(t, src.writeKey, '/v1/batch', text)).status).toBe(200);

    await eventually(() => r.requests.length >= 6 || undefined, { what: '6 deliveries' });
    const byMessage = new Map(r.requests.map((q) => [JSON.parse(q.body.toString()).messageId as string, q]));
    const ctxJson = '{"ip":"203.0.113.9","locale":"fr-FR"}';
    const expected: Record<string, string> = {
      'm-identify': `{"version":1,"type":"identify","messageId":"m-identify","userId":"u1","traits":{"name":"Zoë","big":12345678901234567890},"timestamp":"${ts}","context":${ctxJson}}`,
      'm-track': `{"version":1,"type":"track","messageId":"m-track","anonymousId":"a1","userId":"u1","event":"Order Completed","properties":{"revenue":19.9},"timestamp":"${ts}","context":${ctxJson}}`,
      'm-page': `{"version":1,"type":"page","messageId":"m-page","userId":"u1","name":"Home","properties":{"path":"/","url":"https://example.com/"},"timestamp":"${ts}","context":${ctxJson}}`,
      'm-screen': `{"version":1,"type":"screen","messageId":"m-screen","userId":"u1","name":"Settings","timestamp":"${ts}","context":{"device":{"model":"Pixel","type":"android"}}}`,
      'm-group': `{"version":1,"type":"group","messageId":"m-group","userId":"u1","groupId":"g1","traits":{"plan":"pro"},"timestamp":"${ts}","context":${ctxJson}}`,
      'm-alias': `{"version":1,"type":"alias","messageId":"m-alias","Previous ID":"u1","User ID":"u2","timestamp":"${ts}","context":${ctxJson}}`,
    };
    for (const [messageId, body] of Object.entries(expected)) {
      const req = byMessage.get(messageId);
      expect(req?.body.toString('utf8')).toBe(body);
      expect(req!.method).toBe('POST');
      expect(req!.headers['content-type']).toBe('application/json');
      expect(req!.headers['user-agent']).toMatch(/^Hookline\/\d+\.\d+\.\d+/);
      expect(req!.headers['x-api-key']).toBe('abc123');
      expect(req!.headers['x-tenant']).toBe('acme');
      expect(req!.headers['x-signature']).toBe(createHmac('sha1', secret).update(req!.body).digest('hex'));
    }
    expect(r.requests).toHaveLength(6);
  });

  it('sends one delete notification per affected source for a deletion request', async () => {
    const [a, b] = [await freshSource(), await freshSource()];
    const [ra, rb] = [await receiver(), await receiver()];
    await createDestination(t, { sourceId: a.id, webhooks: [{ url: ra.url }] });
    await createDestination(t, { sourceId: b.id, webhooks: [{ url: rb.url }] });
    const res = await t.admin<{ notifications: { sourceId: string }[] }>(
      'POST',
      '/api/v1/deletion-requests',
      {
        userId: 'user-to-forget',
        sourceIds: [a.id],
      },
    );
    expect(res.status).toBe(202);
    expect(res.body.notifications).toEqual([expect.objectContaining({ sourceId: a.id })]);
    await eventually(() => ra.requests.length === 1 || undefined, { what: 'the delete notification' });
    const body = ra.requests[0]!.body.toString('utf8');
    expect(body).toMatch(
      /^\{"type":"delete","userId":"user-to-forget","timestamp":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"\}$/,
    );
    expect(rb.requests).toHaveLength(0);
    expect(
      (await t.admin('POST', '/api/v1/deletion-requests', { userId: 'x', sourceIds: ['src_nope'] })).status,
    ).toBe(422);
    const invalid = await t.admin('POST', '/api/v1/deletion-requests', { sourceIds: [a.id] });
    expect(invalid.status).toBe(400);
    // The admin API's validation error, as every other route answers it (docs/catalog.md).
    expect(invalid.body).toMatchObject({
      error: 'validation_failed',
      message: expect.stringMatching(/^userId: /),
      issues: [expect.objectContaining({ path: 'userId' })],
    });
  });

  it('sends no signature when the destination has no secret', async () => {
    const src = await freshSource();
    const r = await receiver();
    await createDestination(t, { sourceId: src.id, webhooks: [{ url: r.url }] });
    await sendTracking(t, src.writeKey, '/v1/track', { userId: 'u', event: 'E' });
    await eventually(() => r.requests.length === 1 || undefined, { what: 'a delivery' });
    expect(r.requests[0]!.headers['x-signature']).toBeUndefined();
  });

  it('tries URLs in order: the first success wins and later URLs are not called', async () => {
    const src = await freshSource();
    const [first, second, third] = [
      await receiver(() => ({ status: 500 })),
      await receiver(),
      await receiver(),
    ];
    await createDestination(t, {
      sourceId: src.id,
      webhooks: [{ url: first.url }, { url: second.url }, { url: third.url }],
    });
    await sendTracking(t, src.writeKey, '/v1/track', {
      userId: 'u',
      event: 'Failover',
      messageId: 'm-failover',
    });
    await eventually(() => second.requests.length === 1 || undefined, { what: 'delivery to the second URL' });
    // Give a duplicate or a call to the third URL the chance to show up: wait for the router to
    // commit the event, which happens only after the delivery completed. The app is shared by the
    // tests of this file, so "something committed" would already hold from earlier tests: wait
    // until every event on the topic, this one included, is committed.
    await eventually(async () => (await unfinishedEvents(t)) === 0 || undefined, {
      what: 'router commit of every event',
    });
    expect(first.requests).toHaveLength(1);
    expect(second.requests).toHaveLength(1);
    expect(third.requests).toHaveLength(0);
  });

  it('hands a task whose URLs all fail to the first delay topic and commits its offset', async () => {
    const own = await startTestApp({ HOOKLINE_RETRY_SCHEDULE: '1h', HOOKLINE_RETRY_CUTOFF: '4h' });
    try {
      const src = await createSource(own);
      const failing = [await receiver(() => ({ status: 503 })), await receiver(() => ({ status: 500 }))];
      const destinationId = await createDestination(own, {
        sourceId: src.id,
        webhooks: failing.map((r) => ({ url: r.url })),
      });
      await sendTracking(own, src.writeKey, '/v1/track', {
        userId: 'u',
        event: 'Doomed',
        messageId: 'm-doomed',
      });

      const retried = await eventually(() => readAll(own, `${own.prefix}.retry.1h`, 1), {
        what: 'a task on the delay topic',
      });
      const task = await decodeTask(own.app.parts.avro, retried[0]!);
      expect(task).toMatchObject({ destinationId, messageId: 'm-doomed', attempts: 1 });
      expect(task.history).toHaveLength(1);
      expect(task.history[0]).toMatchObject({ result: 'http_5xx', status: 500, urlIndex: 1 });
      expect(task.dueAtMs! - task.firstAttemptAtMs!).toBeGreaterThanOrEqual(3_600_000);
      await eventually(
        async () => (await committed(own, `${own.prefix}.router`, `${own.prefix}.events`)) >= 1 || undefined,
        {
          what: 'router commit after the hand-off',
        },
      );
      expect(failing.map((r) => r.requests.length)).toEqual([1, 1]);
    } finally {
      await own.stop();
    }
  });

  it('dead-letters a task a receiver refuses for good (410) with the reason', async () => {
    const src = await freshSource();
    const gone = await receiver(() => ({ status: 410 }));
    await createDestination(t, { sourceId: src.id, webhooks: [{ url: gone.url }] });
    await sendTracking(t, src.writeKey, '/v1/track', { userId: 'u', event: 'E', messageId: 'm-gone' });
    const dlq = await eventually(
      async () => {
        const records = (await readAll(t, `${t.prefix}.dlq`, 1)) ?? [];
        const tasks = await Promise.all(
          records.map((v) => decodeTask(t.app.parts.avro, v).catch(() => undefined)),
        );
        return tasks.find((task) => task?.messageId === 'm-gone');
      },
      { what: 'the task on the dead-letter topic' },
    );
    expect(dlq.deadLetterReason).toBe('http_410');
    expect(gone.requests).toHaveLength(1);
  });
});

/** The committed offset sum of a group on a topic (0 when nothing is committed). */
async function committed(t: TestApp, groupId: string, topic: string): Promise<number> {
  const [entry] = await t.app.parts.admin.fetchOffsets({ groupId, topics: [topic] });
  return (entry?.partitions ?? []).reduce((sum, p) => sum + Math.max(0, Number(p.offset)), 0);
}

/** Every record value of a topic; undefined until at least `min` exist. */
async function readAll(t: TestApp, topic: string, min: number): Promise<Buffer[] | undefined> {
  const values = await readTopic(t, topic);
  return values.length >= min ? values : undefined;
}
