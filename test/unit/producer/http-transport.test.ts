import { parseJson, type JsonObject } from '../../../src/events/json';
import { silentLogger } from '../../../src/observability/logger';
import {
  Analytics,
  EventsRejectedError,
  InvalidWriteKeyError,
  MAX_BATCH_BYTES,
  SourceDisabledError,
  TrackingApiError,
  type ErrorContext,
} from '../../../src/producer';
import { connectHttpTransport } from '../../../src/producer/http-transport';
import { resolveCommon } from '../../../src/producer/options';
import { ManualTime, settle } from './manual-time';

interface Request {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** A fetch stand-in: records requests, answers with `answer(request)`. */
function fakeApi(
  answer: (req: Request) => { status: number; body?: unknown } | Error = () => ({
    status: 200,
    body: { success: true },
  }),
) {
  const requests: Request[] = [];
  const fetchImpl = (async (url: string, init: RequestInit) => {
    const req = { url, headers: init.headers as Record<string, string>, body: String(init.body) };
    requests.push(req);
    const a = answer(req);
    if (a instanceof Error) throw a;
    return new Response(a.body === undefined ? '' : JSON.stringify(a.body), { status: a.status });
  }) as typeof fetch;
  return { requests, fetchImpl };
}

async function connect(
  api: ReturnType<typeof fakeApi>,
  errors: Error[] = [],
  flushAt = 2,
  contexts: ErrorContext[] = [],
) {
  const time = new ManualTime();
  const common = resolveCommon({
    clock: time,
    scheduler: time,
    logger: silentLogger(),
    onError: (e, context) => {
      errors.push(e);
      contexts.push(context);
    },
    flushAt,
  });
  const transport = await connectHttpTransport(
    'wk_secret',
    { batchUrl: 'http://api.test/v1/batch', requestTimeoutMs: 1_000, fetch: api.fetchImpl },
    common,
  );
  return { time, analytics: Analytics.over(transport, {}, common) };
}

describe('HTTP transport', () => {
  it('checks the write key with an empty batch, then POSTs batches with Basic auth, timestamps and sentAt', async () => {
    const api = fakeApi();
    const { analytics, time } = await connect(api);
    expect(api.requests[0]!.body).toBe('{"batch":[],"sentAt":"2024-05-01T12:00:00.000Z"}');
    time.advance(1_500);
    analytics.track({
      userId: 'u1',
      event: 'Paid',
      properties: { id: 12345678901234567890n },
      messageId: 'm1',
    });
    analytics.identify({ anonymousId: 'a1', timestamp: '2024-01-01T00:00:00+02:00', messageId: 'm2' });
    await analytics.flush();
    const req = api.requests[1]!;
    expect(req.url).toBe('http://api.test/v1/batch');
    expect(req.headers.authorization).toBe(`Basic ${Buffer.from('wk_secret:').toString('base64')}`);
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['user-agent']).toMatch(/^hookline-producer\//);
    expect(req.body).toBe(
      '{"batch":[' +
        '{"type":"track","messageId":"m1","userId":"u1","event":"Paid","properties":{"id":12345678901234567890},"timestamp":"2024-05-01T12:00:01.500Z"},' +
        '{"type":"identify","messageId":"m2","anonymousId":"a1","timestamp":"2024-01-01T00:00:00+02:00"}' +
        '],"sentAt":"2024-05-01T12:00:01.500Z"}',
    );
  });

  it.each([
    [{ status: 401, body: { error: 'invalid_write_key', message: 'no such key' } }, InvalidWriteKeyError],
    [{ status: 401, body: { error: 'source_disabled', message: 'disabled' } }, SourceDisabledError],
    [{ status: 503, body: { error: 'unavailable', message: 'retry later' } }, TrackingApiError],
    [new TypeError('fetch failed'), TrackingApiError],
  ])('fails connect on %j', async (answer, type) => {
    await expect(connect(fakeApi(() => answer))).rejects.toBeInstanceOf(type);
  });

  it.each([
    [400, 'invalid_batch', false],
    [413, 'payload_too_large', false],
    [408, 'http_408', true],
    [429, 'http_429', true],
    [500, 'internal', true],
    [503, 'unavailable', true],
  ])('HTTP %i is TrackingApiError %s, retriable %s', async (status, code, retriable) => {
    let calls = 0;
    const api = fakeApi(() =>
      calls++ === 0
        ? { status: 200, body: { success: true } }
        : { status, body: code.startsWith('http_') ? undefined : { error: code, message: 'm' } },
    );
    const errors: Error[] = [];
    const { analytics } = await connect(api, errors);
    analytics.track({ userId: 'u1', event: 'e' });
    await expect(analytics.flush()).rejects.toMatchObject({ code, status, retriable });
    expect(analytics.queued).toBe(retriable ? 1 : 0); // retried later, or dropped
    expect(errors[0]).toBeInstanceOf(TrackingApiError);
  });

  it('reports events the API refused in a 200', async () => {
    let calls = 0;
    const api = fakeApi(() =>
      calls++ === 0
        ? { status: 200, body: { success: true } }
        : {
            status: 200,
            body: {
              success: true,
              rejected: [{ index: 0, messageId: 'm1', code: 'invalid_field', reason: 'r' }],
            },
          },
    );
    const errors: Error[] = [];
    const contexts: ErrorContext[] = [];
    const { analytics } = await connect(api, errors, 2, contexts);
    analytics.track({ userId: 'u1', event: 'e', messageId: 'm1' });
    await analytics.flush();
    expect(errors).toEqual([expect.any(EventsRejectedError)]);
    expect(contexts).toEqual([{ willRetry: false, count: 1, messageIds: ['m1'] }]);
    expect((errors[0] as EventsRejectedError).rejected).toEqual([
      { messageId: 'm1', code: 'invalid_field', reason: 'r' },
    ]);
  });

  it('an onError that throws on refused events does not make the accepted batch count as failed', async () => {
    let calls = 0;
    const api = fakeApi(() =>
      calls++ === 0
        ? { status: 200, body: { success: true } }
        : { status: 200, body: { rejected: [{ messageId: 'm1', code: 'missing_event', reason: 'r' }] } },
    );
    const time = new ManualTime();
    const common = resolveCommon({
      clock: time,
      scheduler: time,
      logger: silentLogger(),
      onError: () => {
        throw new Error('metrics client down');
      },
    });
    const transport = await connectHttpTransport(
      'wk_secret',
      { batchUrl: 'http://api.test/v1/batch', requestTimeoutMs: 1_000, fetch: api.fetchImpl },
      common,
    );
    const analytics = Analytics.over(transport, {}, common);
    for (let i = 0; i < 3; i++) analytics.track({ userId: 'u1', event: 'e' });
    await expect(analytics.close()).resolves.toBeUndefined();
    expect(api.requests).toHaveLength(2); // the key check, then one batch, never sent again
  });

  it('keeps the query out of error messages (it may carry a token)', async () => {
    const api = fakeApi(() => new Error('connect ECONNREFUSED'));
    const common = resolveCommon({ logger: silentLogger(), env: {} });
    const connecting = connectHttpTransport(
      'wk_secret',
      { batchUrl: 'http://api.test/v1/batch?token=t0ps3cret', requestTimeoutMs: 1_000, fetch: api.fetchImpl },
      common,
    );
    await expect(connecting).rejects.toThrow('http://api.test/v1/batch: connect ECONNREFUSED');
    await expect(connecting).rejects.not.toThrow('t0ps3cret');
    expect(api.requests[0]!.url).toBe('http://api.test/v1/batch?token=t0ps3cret'); // still sent
  });

  it('never sends a body over 500 KB: 17 calls of ~30 KB go in two requests', async () => {
    const api = fakeApi();
    const { analytics } = await connect(api, [], 100); // flushAt above 17: only the byte cap splits
    const big = 'x'.repeat(30 * 1024);
    for (let i = 0; i < 17; i++) analytics.track({ userId: 'u1', event: 'e', properties: { big, i } });
    await analytics.flush();
    await settle();
    const bodies = api.requests.slice(1).map((r) => r.body);
    expect(bodies.length).toBe(2);
    for (const body of bodies) expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MAX_BATCH_BYTES);
    const items = bodies.flatMap((b) =>
      ((parseJson(b) as JsonObject).batch as JsonObject[]).map((e) => (e.properties as JsonObject).i),
    );
    expect(items).toEqual(Array.from({ length: 17 }, (_, i) => i));
  });
});
