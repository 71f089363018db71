import { gzipSync } from 'node:zlib';
import { parseJson, stringifyJson } from '../../src/events/json';
import { eventually } from '../support/eventually';
import { newRunId, useTrackingHarness } from '../support/segment/harness';

/**
 * The Segment-compatible tracking API on a real broker: what a request stores on
 * `<prefix>.events` and `<prefix>.ingest-dlq`, read back with a consumer and decoded as the app
 * does. One ingest-only process for the file; each test uses its own ids (a run id prefix).
 */
type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const h = useTrackingHarness();
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('tracking API: single calls and batches', () => {
  it('stores a call sent to each /v1/<type>, keyed by userId else anonymousId, messageId kept or generated', async () => {
    const run = newRunId();
    const u = `${run}-u`;
    const calls: [string, object][] = [
      ['identify', { userId: u, messageId: `${run}-m1`, traits: { name: 'Zoë', vip: true } }],
      // A number JavaScript cannot hold exactly travels verbatim.
      [
        'track',
        {
          userId: u,
          anonymousId: `${run}-a`,
          event: 'Order Completed',
          properties: { n: parseJson('123456789012345678901234567890') },
        },
      ],
      ['page', { userId: u, name: 'Home', category: 'Docs', properties: { path: '/' } }],
      ['screen', { anonymousId: `${run}-a`, name: 'Settings', properties: { tab: 'privacy' } }],
      ['group', { userId: u, messageId: `${run}-m5`, groupId: 'g-1', traits: { plan: 'enterprise' } }],
      ['alias', { userId: u, previousId: `${run}-a` }],
    ];
    const startedMs = Date.now();
    for (const [type, body] of calls) {
      const res = await h.post(`/v1/${type}`, stringifyJson(body));
      expect([type, res.status, res.body]).toEqual([type, 200, { success: true }]);
    }
    const endedMs = Date.now();

    const records = await h.storedOfRun(run, calls.length);
    const byType = new Map(records.map((r) => [r.value.type as string, r]));
    expect([...byType.keys()].sort()).toEqual(calls.map(([type]) => type).sort());
    // Keyed by userId, else anonymousId; one key, one partition, in the order sent.
    expect(calls.map(([type]) => byType.get(type)!.key)).toEqual([u, u, u, `${run}-a`, u, u]);
    const ofUser = records.filter((r) => r.key === u).sort((a, b) => a.offset - b.offset);
    expect(new Set(ofUser.map((r) => r.partition)).size).toBe(1);
    expect(ofUser.map((r) => r.value.type)).toEqual(['identify', 'track', 'page', 'group', 'alias']);
    for (const { value } of records) {
      const receivedAtMs = Date.parse(value.receivedAt);
      expect(value.receivedAt).toMatch(ISO_MS);
      expect(receivedAtMs).toBeGreaterThanOrEqual(startedMs);
      expect(receivedAtMs).toBeLessThanOrEqual(endedMs);
      expect(value.timestamp).toBe(value.receivedAt); // no client timestamp: when received
      expect(value.sourceId).toBe(h.source.id);
    }
    const [identify, track, page, screen, group, alias] = calls.map(
      ([type]) => byType.get(type)!.value as Json,
    );
    expect(identify).toEqual({
      ...common(identify),
      type: 'identify',
      messageId: `${run}-m1`,
      userId: u,
      traits: { name: 'Zoë', vip: true },
    });
    expect(stringifyJson(track.properties)).toBe('{"n":123456789012345678901234567890}');
    expect(track).toMatchObject({
      type: 'track',
      userId: u,
      anonymousId: `${run}-a`,
      event: 'Order Completed',
    });
    expect(page).toEqual({
      ...common(page),
      type: 'page',
      userId: u,
      name: 'Home',
      category: 'Docs',
      properties: { path: '/' },
    });
    expect(screen).toEqual({
      ...common(screen),
      type: 'screen',
      anonymousId: `${run}-a`,
      name: 'Settings',
      properties: { tab: 'privacy' },
    });
    expect(group).toEqual({
      ...common(group),
      type: 'group',
      messageId: `${run}-m5`,
      userId: u,
      groupId: 'g-1',
      traits: { plan: 'enterprise' },
    });
    expect(alias).toEqual({ ...common(alias), type: 'alias', userId: u, previousId: `${run}-a` });
    const generated = [track, page, screen, alias].map((e) => e.messageId);
    for (const id of generated) expect(id).toMatch(UUID);
    expect(new Set(generated).size).toBe(4);
  });

  it.each(['/v1/batch', '/v1/import'])(
    '%s stores every event of the batch, in order per user',
    async (path) => {
      const run = newRunId();
      const events = [
        { type: 'identify', userId: `${run}-u1`, messageId: `${run}-1`, traits: { step: 1 } },
        { type: 'track', userId: `${run}-u2`, messageId: `${run}-2`, event: 'Other User' },
        { type: 'track', userId: `${run}-u1`, messageId: `${run}-3`, event: 'Step Two' },
        { type: 'page', anonymousId: `${run}-a1`, messageId: `${run}-4`, name: 'Landing' },
        { type: 'group', userId: `${run}-u1`, messageId: `${run}-5`, groupId: 'g' },
      ];
      const res = await h.post(path, { batch: events });
      expect([res.status, res.body]).toEqual([200, { success: true }]);

      const records = await h.storedOfRun(run, events.length);
      const byId = new Map(records.map((r) => [r.value.messageId, r]));
      for (const e of events) {
        expect(byId.get(e.messageId)).toMatchObject({
          key: e.userId ?? e.anonymousId,
          value: { ...e, sourceId: h.source.id },
        });
      }
      // Same key, same partition, batch order.
      const user1 = records.filter((r) => r.key === `${run}-u1`);
      expect(new Set(user1.map((r) => r.partition)).size).toBe(1);
      expect(user1.sort((a, b) => a.offset - b.offset).map((r) => r.value.messageId)).toEqual([
        `${run}-1`,
        `${run}-3`,
        `${run}-5`,
      ]);
    },
  );

  it('a batch of 50 with one bad event: 49 stored, 1 on the ingest DLQ with code, reason and payload, listed in the answer', async () => {
    const run = newRunId();
    const batch: object[] = Array.from({ length: 50 }, (_, i) => ({
      type: 'track',
      userId: `${run}-u${i % 7}`,
      messageId: `${run}-${i}`,
      event: 'Item Viewed',
      properties: { i },
    }));
    const bad = {
      type: 'track',
      messageId: `${run}-bad`,
      event: 'No Identity',
      properties: { note: 'ünïcode' },
    };
    batch[17] = bad;
    const startedMs = Date.now();
    const res = await h.post('/v1/batch', { batch });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      rejected: [
        {
          index: 17,
          messageId: `${run}-bad`,
          code: 'missing_identity',
          reason: 'event needs a userId or an anonymousId',
        },
      ],
    });

    const records = await h.storedOfRun(run, 49);
    expect(records.map((r) => r.value.messageId).sort()).toEqual(
      batch
        .filter((_, i) => i !== 17)
        .map((e) => (e as { messageId: string }).messageId)
        .sort(),
    );
    const dlq = h.stored.rejected.filter((r) => r.value.messageId === `${run}-bad`);
    expect(dlq).toHaveLength(1);
    const [rejection] = dlq;
    expect(rejection!.key).toBe(h.source.id);
    expect(rejection!.value).toMatchObject({
      sourceId: h.source.id,
      path: '/v1/batch',
      index: 17,
      messageId: `${run}-bad`,
      code: 'missing_identity',
      reason: 'event needs a userId or an anonymousId',
    });
    expect(JSON.parse(rejection!.value.payload)).toEqual(bad);
    const receivedAtMs = rejection!.value.receivedAt;
    expect(receivedAtMs).toBeGreaterThanOrEqual(startedMs);
    expect(receivedAtMs).toBeLessThanOrEqual(Date.now());
  });

  it('keeps a rejected single event in the ingest DLQ without the write key its body carried', async () => {
    const run = newRunId();
    const bad = { type: 'track', messageId: `${run}-bad`, event: 'No Identity', writeKey: h.source.writeKey };
    const res = await h.post('/v1/track', bad, { writeKey: null });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, rejected: [{ code: 'missing_identity' }] });

    const rejection = await eventually(
      () => h.stored.rejected.find((r) => r.value.messageId === `${run}-bad`),
      { what: 'the rejected event in the ingest DLQ' },
    );
    expect(JSON.parse(rejection.value.payload)).toEqual({
      type: 'track',
      messageId: `${run}-bad`,
      event: 'No Identity',
    });
    expect(rejection.value.payload).not.toContain(h.source.writeKey);
  });

  it('merges batch-level context and integrations into every event, the event’s own keys winning', async () => {
    const run = newRunId();
    const res = await h.post('/v1/batch', {
      context: { library: { name: 'analytics-go', version: '2.1.0' }, ip: '203.0.113.1', locale: 'fr-FR' },
      integrations: { All: false, Webhooks: true },
      batch: [
        { type: 'track', userId: `${run}-u`, messageId: `${run}-plain`, event: 'Plain' },
        {
          type: 'track',
          userId: `${run}-u`,
          messageId: `${run}-own`,
          event: 'Own',
          context: { ip: '198.51.100.9', page: { path: '/x' } },
          integrations: { Webhooks: false, Mixpanel: true },
        },
      ],
    });
    expect(res.status).toBe(200);
    const records = await h.storedOfRun(run, 2);
    const byId = new Map(records.map((r) => [r.value.messageId, r.value as Json]));
    expect(byId.get(`${run}-plain`)).toMatchObject({
      context: { library: { name: 'analytics-go', version: '2.1.0' }, ip: '203.0.113.1', locale: 'fr-FR' },
      integrations: { All: false, Webhooks: true },
    });
    expect(byId.get(`${run}-own`).context).toEqual({
      library: { name: 'analytics-go', version: '2.1.0' },
      ip: '198.51.100.9',
      locale: 'fr-FR',
      page: { path: '/x' },
    });
    expect(byId.get(`${run}-own`).integrations).toEqual({ All: false, Webhooks: false, Mixpanel: true });
  });

  it('accepts a gzip-encoded body', async () => {
    const run = newRunId();
    const body = gzipSync(
      JSON.stringify({
        batch: [{ type: 'track', userId: `${run}-u`, messageId: `${run}-gz`, event: 'Zipped' }],
      }),
    );
    const res = await h.post('/v1/batch', body, { headers: { 'content-encoding': 'gzip' } });
    expect([res.status, res.body]).toEqual([200, { success: true }]);
    const [record] = await h.storedOfRun(run, 1);
    expect(record!.value).toMatchObject({ type: 'track', messageId: `${run}-gz`, event: 'Zipped' });
  });
});

function common(event: Json): object {
  return {
    messageId: event.messageId,
    timestamp: event.receivedAt,
    receivedAt: event.receivedAt,
    sourceId: h.source.id,
  };
}
