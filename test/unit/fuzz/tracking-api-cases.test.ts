import { CUT_MARKER, MAX_EVENT_DEPTH, jsonDepth } from '../../../src/events/depth';
import { connect } from 'node:net';
import { startFuzzTarget } from './harness';

/**
 * Particular requests the tracking API once mishandled, over real HTTP, each named by the
 * behaviour it protects.
 */
describe('tracking API regressions', () => {
  let target: Awaited<ReturnType<typeof startFuzzTarget>>;
  beforeAll(async () => (target = await startFuzzTarget()));
  afterAll(() => target.close());

  const basic = (key: string) => `Basic ${Buffer.from(`${key}:`).toString('base64')}`;
  async function post(path: string, body: string) {
    const res = await fetch(`${target.baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: basic(target.writeKey), 'content-type': 'application/json' },
      body,
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  }
  /** The ingest-DLQ records a request produced, decoded. */
  async function producedRejections(after: number) {
    const messages = target.produced.slice(after).filter((m) => m.topic === 'fuzz.ingest-dlq');
    return Promise.all(messages.map(async (m) => (await target.avro.decode(m.value!)).value));
  }
  /** The events a request produced to the events topic, decoded. */
  async function producedEvents(after: number) {
    const messages = target.produced.slice(after).filter((m) => m.topic === 'fuzz.events');
    return Promise.all(messages.map((m) => target.events.decode(m.value!)));
  }

  it('stores the events of the "batch" JSON.parse keeps when the key is also written with an escape', async () => {
    const before = target.produced.length;
    const body =
      '{"batch":[{"context":[1,2],"properties":{"who":"A"}}],' +
      '"b\\u0061tch":[{"type":"track","userId":"b","event":"B","context":{"ip":"1.2.3.4"},"properties":{"who":"B"}}]}';
    const res = await post('/v1/batch', body);
    expect(res).toEqual({ status: 200, json: { success: true } });
    const [event, ...rest] = await producedEvents(before);
    expect(rest).toEqual([]);
    expect(event).toMatchObject({ userId: 'b', context: { ip: '1.2.3.4' }, properties: { who: 'B' } });
  });

  it.each(['10.5', '10.50'])(
    'takes the last of a key written twice, whether the body is parsed natively or losslessly (price %s)',
    async (price) => {
      const before = target.produced.length;
      const other = `{"type":"track","userId":"a","event":"A","properties":{"price":${price}}}`;
      const twice = '{"type":"track","userId":"b","event":"B","properties":{"k":1,"k":2}}';
      const res = await post('/v1/batch', `{"batch":[${other},${twice}]}`);
      expect(res).toEqual({ status: 200, json: { success: true } });
      const events = await producedEvents(before);
      expect(events.map((e) => (e as { properties?: unknown }).properties)).toEqual([
        { price: expect.anything() },
        { k: 2 },
      ]);
    },
  );

  it('keeps every event of a batch whose sentAt is not a timestamp', async () => {
    const before = target.produced.length;
    const batch = [
      { type: 'track', userId: 'a', event: 'A' },
      { type: 'identify', userId: 'b' },
    ];
    const res = await post('/v1/batch', JSON.stringify({ sentAt: 1700000000000, batch }));
    expect(res).toEqual({ status: 200, json: { success: true } });
    expect((await producedEvents(before)).map((e) => e.userId)).toEqual(['a', 'b']);
  });

  it('labels request metrics with the registered route, whatever path matched it', async () => {
    const paths = ['/v1//batch', '/v1/batch/', '/v1/track//', '/v1///import?x=1'];
    for (const path of paths) {
      const res = await fetch(`${target.baseUrl}${path}`, { method: 'POST', body: '{}' });
      expect(res.status).toBe(401); // matched, then refused: no write key
    }
    const metrics = await target.ingestMetrics.getMetricsAsJSON();
    const routes = new Set(
      metrics
        .filter((m) => m.name.startsWith('hookline_ingest_request'))
        .flatMap((m) => m.values.map((v) => v.labels.route))
        .filter((route) => route !== undefined),
    );
    expect([...routes].sort()).toEqual(['/v1/batch', '/v1/import', '/v1/track']);
  });

  it('counts a request whose client closed the connection mid-body as 499, not 500', async () => {
    const requests = async () =>
      (await target.ingestMetrics.getSingleMetric('hookline_ingest_requests_total')!.get()).values;
    const socket = connect(Number(new URL(target.baseUrl).port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const auth = Buffer.from(`${target.writeKey}:`).toString('base64');
    socket.write(
      `POST /v1/batch HTTP/1.1\r\nHost: x\r\nAuthorization: Basic ${auth}\r\nContent-Length: 1000\r\n\r\n{"batch":[`,
    );
    const deadline = Date.now() + 5_000;
    const countOf = async (status: string) =>
      (await requests()).find((v) => v.labels.status === status && v.labels.route === '/v1/batch')?.value ??
      0;
    await new Promise((resolve) => setTimeout(resolve, 50)); // the headers reach the handler
    socket.destroy();
    while ((await countOf('499')) === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(await countOf('499')).toBe(1);
    expect(await countOf('500')).toBe(0);
  });

  describe('an event nested too deep', () => {
    const deep = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
    const good = '{"type":"track","userId":"u1","event":"Good","properties":{"price":10.50}}';
    const tooDeep = {
      code: 'too_deep',
      reason: `event nests objects and arrays more than ${MAX_EVENT_DEPTH} levels deep`,
    };

    it.each([
      ['5,000 levels, with whitespace (not the scanned text)', `{"x": ${deep(5_000)}}`],
      ['5,000 levels, compact', `{"x":${deep(5_000)}}`],
      ['one level past the limit', `{"x": ${deep(MAX_EVENT_DEPTH - 1)}}`],
    ])('is refused alone, the others of its batch kept: %s', async (_name, properties) => {
      for (const number of ['10.50', '10.5']) {
        // 10.50 takes the lossless parser, 10.5 JSON.parse.
        const before = target.produced.length;
        const bad = `{"type":"track","userId":"u2","event":"Bad","messageId":"bad-1","properties":${properties}}`;
        const res = await post('/v1/batch', `{"batch":[${good.replace('10.50', number)},${bad}]}`);
        expect(res).toEqual({
          status: 200,
          json: { success: true, rejected: [{ index: 1, messageId: 'bad-1', ...tooDeep }] },
        });
        const [event, ...others] = await producedEvents(before);
        expect(others).toEqual([]);
        expect(event).toMatchObject({ userId: 'u1', event: 'Good' });
        // The DLQ record keeps the event cut at the limit: readable by any JSON reader.
        const [record] = await producedRejections(before);
        expect(record).toMatchObject({ index: 1, messageId: 'bad-1', ...tooDeep });
        const payload = JSON.parse((record as { payload: string }).payload) as Record<string, unknown>;
        expect(payload).toMatchObject({ userId: 'u2', event: 'Bad' });
        expect(jsonDepth(payload, 1_000)).toBe(MAX_EVENT_DEPTH);
        expect(JSON.stringify(payload)).toContain(JSON.stringify(CUT_MARKER));
      }
    });

    it('keeps the good number text of the batch whose other event is too deep', async () => {
      const before = target.produced.length;
      await post(
        '/v1/batch',
        `{"batch":[${good},{"type":"track","userId":"u2","event":"B","properties":${deep(9_000)}}]}`,
      );
      const [event] = await producedEvents(before);
      expect(String((event as unknown as { properties: { price: unknown } }).properties.price)).toBe('10.50');
    });

    it('is refused on a single-event route with 200 and the reason', async () => {
      const res = await post('/v1/track', `{"userId":"u","event":"E","properties":{"x": ${deep(5_000)}}}`);
      expect(res).toEqual({ status: 200, json: { success: true, rejected: [{ index: 0, ...tooDeep }] } });
    });

    it('is refused alone when a root key is written with an escape (the scan cannot follow the batch)', async () => {
      const res = await post(
        '/v1/batch',
        `{"b\u0061tch":[${good},{"type":"track","userId":"u","event":"E","properties":${deep(5_000)}}]}`,
      );
      expect(res).toEqual({ status: 200, json: { success: true, rejected: [{ index: 1, ...tooDeep }] } });
    });

    it.each([
      ['batch-level context', (d: string) => `{"context":{"x":${d}},"batch":[${good}]}`],
      [
        'batch-level context, lossless parse',
        (d: string) => `{"n":1.0,"context":{"x":${d}},"batch":[${good}]}`,
      ],
      ['an unknown root key, root key escaped', (d: string) => `{"b\u0061tch":[${good}],"x":${d}}`],
    ])('refuses a request nested too deep outside its events with 400: %s', async (_name, body) => {
      const before = target.produced.length;
      const res = await post('/v1/batch', body(deep(5_000)));
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({
        error: 'too_deep',
        message: expect.stringContaining(`${MAX_EVENT_DEPTH} levels`),
      });
      expect(target.produced.length).toBe(before);
    });
  });
});
