import { gzipSync } from 'node:zlib';
import { newRunId, useTrackingHarness } from '../support/segment/harness';

/**
 * The tracking API's refusals on a real broker: whole requests refused (size, shape, write key)
 * answer 4xx JSON and publish nothing.
 */
const h = useTrackingHarness();

describe('tracking API: limits', () => {
  it('refuses a request over 500 KB with a 413 JSON error and publishes nothing', async () => {
    await h.stored.catchUp();
    const before = await h.stored.recordCount();
    const run = newRunId();
    const bigBatch = {
      batch: Array.from({ length: 40 }, (_, i) => ({
        type: 'track',
        userId: `${run}-u`,
        event: 'Big',
        properties: { pad: 'x'.repeat(14_000), i },
      })),
    };
    const plain = JSON.stringify(bigBatch);
    expect(Buffer.byteLength(plain)).toBeGreaterThan(500 * 1024);

    const tooBig = await h.post('/v1/batch', plain);
    expect([tooBig.status, tooBig.contentType, tooBig.body.error]).toEqual([
      413,
      'application/json; charset=utf-8',
      'payload_too_large',
    ]);
    expect(typeof tooBig.body.message).toBe('string');
    // Small on the wire, over the limit once decompressed.
    const zipped = gzipSync(plain);
    expect(zipped.length).toBeLessThan(500 * 1024);
    const tooBigInflated = await h.post('/v1/batch', zipped, { headers: { 'content-encoding': 'gzip' } });
    expect([tooBigInflated.status, tooBigInflated.body.error]).toEqual([413, 'payload_too_large']);

    // A marker sent afterwards is the one record written since.
    const marker = await h.post('/v1/track', {
      userId: `${run}-marker`,
      messageId: `${run}-marker`,
      event: 'Marker',
    });
    expect(marker.status).toBe(200);
    const [record] = await h.storedOfRun(run, 1);
    expect(record!.value.messageId).toBe(`${run}-marker`);
    expect(await h.stored.recordCount()).toEqual({ events: before.events + 1, rejected: before.rejected });
  });
});

describe('tracking API: malformed requests', () => {
  it('refuses them whole with 4xx JSON errors and publishes nothing', async () => {
    await h.stored.catchUp();
    const before = await h.stored.recordCount();
    const item = { type: 'track', userId: 'u-malformed', event: 'E' };
    const cases = [
      ['truncated JSON', await h.post('/v1/batch', '{"batch":')],
      ['not an object', await h.post('/v1/batch', '[1,2]')],
      ['batch not an array', await h.post('/v1/batch', { batch: 'x' })],
      ['batch context not an object', await h.post('/v1/batch', { batch: [item], context: 'x' })],
      ['2,501 events', await h.post('/v1/batch', { batch: Array.from({ length: 2_501 }, () => item) })],
      [
        'gzip header, plain body',
        await h.post('/v1/batch', { batch: [item] }, { headers: { 'content-encoding': 'gzip' } }),
      ],
      ['brotli', await h.post('/v1/batch', { batch: [item] }, { headers: { 'content-encoding': 'br' } })],
    ] as const;
    expect(cases.map(([name, r]) => [name, r.status, r.contentType, r.body.error])).toEqual([
      ['truncated JSON', 400, 'application/json; charset=utf-8', 'invalid_json'],
      ['not an object', 400, 'application/json; charset=utf-8', 'invalid_body'],
      ['batch not an array', 400, 'application/json; charset=utf-8', 'invalid_batch'],
      ['batch context not an object', 400, 'application/json; charset=utf-8', 'invalid_batch'],
      ['2,501 events', 400, 'application/json; charset=utf-8', 'batch_too_large'],
      ['gzip header, plain body', 400, 'application/json; charset=utf-8', 'invalid_encoding'],
      ['brotli', 415, 'application/json; charset=utf-8', 'unsupported_encoding'],
    ]);
    // Refused before anything is handed to the producer: nothing can be in flight.
    expect(await h.stored.recordCount()).toEqual(before);
  });
});

describe('tracking API: write keys', () => {
  it('accepts the key as Basic user (empty password) or as `writeKey` in the body; 401 JSON otherwise', async () => {
    const run = newRunId();
    const track = (id: string, extra: object = {}) => ({
      userId: `${run}-${id}`,
      messageId: `${run}-${id}`,
      event: 'Auth',
      ...extra,
    });

    const accepted = [
      await h.post('/v1/track', track('basic')),
      await h.post('/v1/track', track('body', { writeKey: h.source.writeKey }), { writeKey: null }),
      await h.post('/v1/track', track('both', { writeKey: 'wrong-key-in-body' })), // the header wins
    ];
    expect(accepted.map((r) => r.status)).toEqual([200, 200, 200]);

    const refused = [
      ['no key', await h.post('/v1/track', track('none'), { writeKey: null })],
      ['empty body key', await h.post('/v1/track', track('empty', { writeKey: '' }), { writeKey: null })],
      ['unknown Basic', await h.post('/v1/track', track('unknown'), { writeKey: 'no-such-key' })],
      [
        'unknown body key',
        await h.post(
          '/v1/batch',
          { writeKey: 'no-such-key', batch: [track('unknown-body')] },
          { writeKey: null },
        ),
      ],
      [
        'bearer',
        await h.post('/v1/track', track('bearer'), {
          writeKey: null,
          headers: { authorization: `Bearer ${h.source.writeKey}` },
        }),
      ],
    ] as const;
    expect(refused.map(([name, r]) => [name, r.status, r.contentType, r.body.error])).toEqual([
      ['no key', 401, 'application/json; charset=utf-8', 'missing_write_key'],
      ['empty body key', 401, 'application/json; charset=utf-8', 'missing_write_key'],
      ['unknown Basic', 401, 'application/json; charset=utf-8', 'invalid_write_key'],
      ['unknown body key', 401, 'application/json; charset=utf-8', 'invalid_write_key'],
      ['bearer', 401, 'application/json; charset=utf-8', 'missing_write_key'],
    ]);
    for (const [, r] of refused) expect(JSON.stringify(r.body)).not.toContain(h.source.writeKey);

    const records = await h.storedOfRun(run, 3);
    expect(records.map((r) => r.key).sort()).toEqual([`${run}-basic`, `${run}-body`, `${run}-both`]);
    expect(records.every((r) => r.value.sourceId === h.source.id)).toBe(true);
  });

  it('refuses the key of a disabled source with 401, and accepts it again once re-enabled', async () => {
    const run = newRunId();
    const other = await h.createSource('Disabled later');
    const send = (id: string) =>
      h.post('/v1/track', { userId: `${run}-${id}`, event: 'E' }, { writeKey: other.writeKey });
    expect((await send('before')).status).toBe(200);

    expect((await h.testApp.admin('PATCH', `/api/v1/sources/${other.id}`, { enabled: false })).status).toBe(
      200,
    );
    const disabled = await send('disabled');
    expect([disabled.status, disabled.body.error]).toEqual([401, 'source_disabled']);

    expect((await h.testApp.admin('PATCH', `/api/v1/sources/${other.id}`, { enabled: true })).status).toBe(
      200,
    );
    expect((await send('after')).status).toBe(200);

    const records = await h.storedOfRun(run, 2);
    expect(records.map((r) => r.key).sort()).toEqual([`${run}-after`, `${run}-before`]);
  });
});
