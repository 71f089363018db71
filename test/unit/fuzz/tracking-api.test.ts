import fc from 'fast-check';
import { gzipSync } from 'node:zlib';
import { FUZZ, startFuzzTarget } from './harness';

/**
 * Hostile input to the tracking API, over real HTTP: whatever arrives, the answer is 200 or a clear
 * 4xx JSON error, never a 5xx or a crash, and the good events of a batch are kept.
 */
describe('tracking API under arbitrary input', () => {
  let target: Awaited<ReturnType<typeof startFuzzTarget>>;
  beforeAll(async () => (target = await startFuzzTarget()));
  afterAll(() => target.close());

  const basic = (key: string) => `Basic ${Buffer.from(`${key}:`).toString('base64')}`;
  async function post(path: string, body: string | Buffer, headers: Record<string, string> = {}) {
    const res = await fetch(`${target.baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: basic(target.writeKey), 'content-type': 'application/json', ...headers },
      body,
    });
    const text = await res.text();
    return { status: res.status, text };
  }
  const clearAnswer = (r: { status: number; text: string }) => {
    expect(r.status === 200 || (r.status >= 400 && r.status < 500)).toBe(true);
    const json = JSON.parse(r.text) as { error?: string; message?: string };
    if (r.status !== 200) expect(typeof json.message).toBe('string');
  };

  const paths = fc.constantFrom(
    '/v1/batch',
    '/v1/track',
    '/v1/identify',
    '/v1/page',
    '/v1/screen',
    '/v1/group',
    '/v1/alias',
    '/v1/import',
  );
  // JSON with deep nesting, unicode keys, huge and odd numbers, wrong types.
  const json = fc.jsonValue({ maxDepth: 8 });

  it('answers any JSON value with 200 or a 4xx, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(paths, json, async (path, value) =>
        clearAnswer(await post(path, JSON.stringify(value))),
      ),
      FUZZ,
    );
  });

  it('answers arbitrary bytes, encodings and content types with 200 or a 4xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        paths,
        fc.uint8Array({ maxLength: 2_000 }),
        fc.constantFrom('application/json', 'text/plain', '', 'application/x-www-form-urlencoded'),
        fc.constantFrom('', 'gzip', 'br', 'identity', 'x-unknown'),
        async (path, bytes, contentType, encoding) => {
          const headers: Record<string, string> = { 'content-type': contentType };
          if (encoding) headers['content-encoding'] = encoding;
          clearAnswer(await post(path, Buffer.from(bytes), headers));
        },
      ),
      FUZZ,
    );
  });

  it('refuses bad credentials with 401, whatever they look like', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 200 }), fc.boolean(), async (junk, asBasic) => {
        const authorization = asBasic ? `Basic ${junk}` : junk;
        const res = await fetch(`${target.baseUrl}/v1/track`, {
          method: 'POST',
          headers: { authorization, 'content-type': 'application/json' },
          body: JSON.stringify({ userId: 'u', event: 'E' }),
        }).catch(() => undefined); // a header Node refuses to send never reaches the server
        if (!res) return;
        expect(res.status).toBe(401);
      }),
      FUZZ,
    );
  });

  it('keeps every good event of a batch whatever the bad ones beside it', async () => {
    const good = fc.record({
      type: fc.constant('track'),
      userId: fc.string({ minLength: 1, maxLength: 40 }),
      event: fc.string({ minLength: 1, maxLength: 40 }),
      properties: fc.dictionary(fc.string({ maxLength: 20 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 }),
    });
    const item = fc.oneof(
      good.map((e) => ({ good: true, e })),
      fc.jsonValue({ maxDepth: 4 }).map((e) => ({ good: false, e })),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(item, { minLength: 1, maxLength: 20 }), fc.boolean(), async (items, zip) => {
        const batch = items.map((it, i) =>
          it.good ? { ...(it.e as object), messageId: `fuzz-${Date.now()}-${i}-${Math.random()}` } : it.e,
        );
        const body = JSON.stringify({ batch });
        const before = target.produced.length;
        const res = zip
          ? await post('/v1/batch', gzipSync(body), { 'content-encoding': 'gzip' })
          : await post('/v1/batch', body);
        expect(res.status).toBe(200);
        const eventsProduced = target.produced.slice(before).filter((m) => m.topic === 'fuzz.events');
        const keptIds = new Set(
          await Promise.all(
            eventsProduced.map(async (m) => (await target.events.decode(m.value!)).messageId),
          ),
        );
        for (const [i, it] of items.entries()) {
          if (it.good) expect(keptIds.has((batch[i] as { messageId: string }).messageId)).toBe(true);
        }
      }),
      FUZZ,
    );
  });

  it('answers an oversized event or request with a 4xx, not a crash', async () => {
    const huge = 'x'.repeat(40 * 1024);
    const one = await post('/v1/track', JSON.stringify({ userId: 'u', event: 'E', properties: { huge } }));
    clearAnswer(one);
    const big = await post(
      '/v1/batch',
      JSON.stringify({ batch: [{ type: 'track', userId: 'u', event: huge.repeat(15) }] }),
    );
    expect(big.status).toBe(413);
  });
});
