import { request, type ClientRequest } from 'node:http';
import { eventually } from '../support/eventually';
import { sendWithAnalyticsNode } from '../support/segment/analytics-node';
import { expectClientCallsStored } from '../support/segment/expect-stored';
import { basicAuth, newRunId, useTrackingHarness } from '../support/segment/harness';

/**
 * The admission queue in front of the tracking API (HOOKLINE_INGEST_CONCURRENCY, _QUEUE):
 * one request runs, one waits, the rest are answered 503 + Retry-After at once. A slot is held
 * by a request whose body has not finished arriving, so which request runs, waits or is refused
 * never depends on timing.
 */
const h = useTrackingHarness({
  HOOKLINE_INGEST_CONCURRENCY: '1',
  HOOKLINE_INGEST_QUEUE: '1',
  HOOKLINE_INGEST_QUEUE_TIMEOUT: '60s',
});

const batchOf = (runId: string, n: number, count = 3) => ({
  batch: Array.from({ length: count }, (_, i) => ({
    type: 'track',
    userId: `${runId}-b${n}`,
    event: 'Burst',
    messageId: `${runId}-b${n}-${i}`,
  })),
});

/** A batch request whose body is sent only when `finish()` is called: it holds its slot till then. */
function heldBatch(body: object): { finish(): Promise<number> } {
  const text = JSON.stringify(body);
  let req: ClientRequest;
  const status = new Promise<number>((resolve, reject) => {
    req = request(
      `${h.testApp.baseUrl}/v1/batch`,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(text),
          authorization: basicAuth(h.source.writeKey),
        },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.flushHeaders();
    req.write(text.slice(0, 1));
  });
  return {
    finish: () => {
      req.end(text.slice(1));
      return status;
    },
  };
}

async function gauge(name: string): Promise<number> {
  const text = await (await fetch(`${h.testApp.baseUrl}/metrics`)).text();
  const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return match ? Number(match[1]) : NaN;
}

const until = (name: string, value: number) =>
  eventually(async () => (await gauge(name)) === value, { what: `${name} = ${value}` });

describe('tracking API admission queue', () => {
  it('refuses beyond the queue with 503 + Retry-After at once; every accepted event is stored, no refused one', async () => {
    const runId = newRunId('adm');
    const running = heldBatch(batchOf(runId, 0));
    await until('hookline_ingest_in_flight_requests', 1);
    const waiting = heldBatch(batchOf(runId, 1));
    await until('hookline_ingest_queued_requests', 1);

    const refused = await Promise.all(
      [2, 3, 4, 5, 6].map(async (n) => {
        const res = await fetch(`${h.testApp.baseUrl}/v1/batch`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: basicAuth(h.source.writeKey) },
          body: JSON.stringify(batchOf(runId, n)),
        });
        return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
      }),
    );
    for (const r of refused) {
      expect(r).toEqual({
        status: 503,
        retryAfter: '1',
        body: expect.objectContaining({ error: 'unavailable' }),
      });
    }

    expect(await running.finish()).toBe(200);
    expect(await waiting.finish()).toBe(200);
    const stored = await h.storedOfRun(runId, 6);
    expect(new Set(stored.map((r) => r.value.messageId))).toEqual(
      new Set([0, 1].flatMap((n) => batchOf(runId, n).batch.map((e) => e.messageId))),
    );
    const metrics = await (await fetch(`${h.testApp.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/hookline_ingest_refused_requests_total\{reason="queue_full"\} 5/);
    expect(metrics).toMatch(/hookline_ingest_requests_total\{route="\/v1\/batch",status="503"\} 5/);
  });

  it('a real analytics-node client refused with 503 retries and delivers every call', async () => {
    const refusedBefore = await gauge('hookline_ingest_refused_requests_total{reason="queue_full"}');
    const running = heldBatch(batchOf(newRunId('hold'), 0));
    await until('hookline_ingest_in_flight_requests', 1);
    const waiting = heldBatch(batchOf(newRunId('hold'), 1));
    await until('hookline_ingest_queued_requests', 1);

    const source = await h.createSource('node under load');
    const client = sendWithAnalyticsNode({
      host: h.testApp.baseUrl,
      writeKey: source.writeKey,
      runId: newRunId('node503'),
      maxRetries: 20,
    });
    // The client met at least one 503 before the slots free up.
    await eventually(
      async () =>
        (await gauge('hookline_ingest_refused_requests_total{reason="queue_full"}')) > refusedBefore,
      { what: 'the client refused once' },
    );
    await Promise.all([running.finish(), waiting.finish()]);

    const node = await client;
    const statuses = node.requests.map((r) => r.status);
    expect(statuses[0]).toBe(503);
    expect(statuses.at(-1)).toBe(200);
    await expectClientCallsStored(
      h.stored,
      { ...node, requests: node.requests.filter((r) => r.status === 200) },
      { screen: true, sourceId: source.id, basicAuthUser: source.writeKey },
    );
  });
});
