import fc from 'fast-check';
import { ADMIN_TOKEN } from '../support/app';
import { eventually } from '../support/eventually';
import { requestsFrom } from '../support/openapi-fuzz';
import { testScope } from '../support/scope';
import { FUZZ } from '../unit/fuzz/harness';

/**
 * The whole admin API of a real Hookline (catalog, dead letters, attempts, replays, deletion
 * requests, secrets) driven over HTTP with requests generated from its own OpenAPI document: no
 * answer may be a 5xx.
 */
describe('admin API fuzzed from its OpenAPI document', () => {
  const { app } = testScope();

  it('never answers a generated request with a 5xx', async () => {
    const t = await app();
    // The dead-letter index answers 503 until it has read its topic: wait for it first.
    await eventually(
      async () => ((await t.admin('GET', '/api/v1/dead-letters')).status === 200 ? true : undefined),
      {
        what: 'the dead-letter index',
      },
    );
    const document = (await (await fetch(`${t.baseUrl}/api/v1/openapi.json`)).json()) as Record<
      string,
      unknown
    >;
    await fc.assert(
      fc.asyncProperty(requestsFrom(document), async (req) => {
        const res = await fetch(`${t.baseUrl}${req.path}`, {
          method: req.method,
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
          body: req.body === undefined ? undefined : JSON.stringify(req.body),
        });
        const text = await res.text();
        expect({ request: req, status: res.status, answer: text.slice(0, 300) }).toEqual({
          request: req,
          status: expect.any(Number),
          answer: expect.any(String),
        });
        if (res.status >= 500) throw new Error(`${req.method} ${req.path} answered ${res.status}: ${text}`);
      }),
      { ...FUZZ, numRuns: Math.max(100, FUZZ.numRuns) },
    );
  }, 120_000);
});
