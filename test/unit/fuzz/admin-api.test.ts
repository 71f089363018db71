import fc from 'fast-check';
import { requestsFrom } from '../../support/openapi-fuzz';
import { ADMIN_TOKEN, FUZZ, startFuzzTarget } from './harness';

/**
 * The catalog's admin API under hostile input, over real HTTP with the real service and store:
 * requests generated from its own OpenAPI document, and arbitrary JSON, always get 2xx or a clear
 * 4xx, never a 5xx.
 */
describe('admin API under arbitrary input', () => {
  let target: Awaited<ReturnType<typeof startFuzzTarget>>;
  beforeAll(async () => (target = await startFuzzTarget()));
  afterAll(() => target.close());

  async function call(method: string, path: string, body?: unknown, token = ADMIN_TOKEN) {
    const res = await fetch(`${target.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json().catch(() => undefined)) as { message?: string } };
  }

  it('answers every request generated from the OpenAPI document without a 5xx', async () => {
    const document = (await (await fetch(`${target.baseUrl}/api/v1/openapi.json`)).json()) as Record<
      string,
      unknown
    >;
    await fc.assert(
      fc.asyncProperty(requestsFrom(document), async (req) => {
        const { status, json } = await call(req.method, req.path, req.body);
        expect({ req, status }).toEqual({ req, status: expect.any(Number) });
        expect(status).toBeLessThan(500);
        if (status >= 400) expect(typeof json?.message).toBe('string');
      }),
      { ...FUZZ, numRuns: FUZZ.numRuns * 2 },
    );
  });

  it('answers arbitrary JSON to every write route with 2xx or 4xx', async () => {
    const routes = fc.constantFrom(
      ['POST', '/api/v1/sources'],
      ['POST', '/api/v1/destinations'],
      ['PATCH', '/api/v1/sources/src_x'],
      ['PATCH', '/api/v1/destinations/dst_x'],
    );
    await fc.assert(
      fc.asyncProperty(routes, fc.jsonValue({ maxDepth: 6 }), async ([method, path], body) => {
        const { status } = await call(method!, path!, body);
        expect(status).toBeLessThan(500);
      }),
      FUZZ,
    );
  });

  it('refuses any wrong token with 401', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 100 }).filter((s) => s !== ADMIN_TOKEN),
        async (token) => {
          const res = await fetch(`${target.baseUrl}/api/v1/sources`, {
            headers: { authorization: `Bearer ${token}` },
          }).catch(() => undefined);
          if (res) expect(res.status).toBe(401);
        },
      ),
      FUZZ,
    );
  });
});
