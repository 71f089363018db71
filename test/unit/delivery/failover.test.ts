import pino from 'pino';
import type { Destination } from '../../../src/records/catalog-model';
import { deliverToDestination } from '../../../src/delivery/failover';
import type { HttpAttempt, WebhookRequest } from '../../../src/delivery/http/client';
import { signatureFor } from '../../../src/delivery/http/signing';

const clock = { now: () => 1_000 };
const ok = (status = 200): HttpAttempt => ({ kind: 'response', status, durationMs: 12 });
const TIMEOUT_MESSAGE = 'Timeout: no answer within 5000 ms';
const timeout: HttpAttempt = {
  kind: 'error',
  result: 'timeout',
  retriable: true,
  message: TIMEOUT_MESSAGE,
  durationMs: 5_000,
};
const tls: HttpAttempt = {
  kind: 'error',
  result: 'tls',
  retriable: false,
  message: 'self-signed certificate',
  durationMs: 3,
};

const blocked: HttpAttempt = { kind: 'blocked', durationMs: 1 };
const retryAfter = (status: number, retryAfterMs: number): HttpAttempt => ({
  kind: 'response',
  status,
  durationMs: 1,
  retryAfterMs,
});

/** A client that answers the i-th URL with answers[i] and records what it was asked. */
function fakeClient(answers: HttpAttempt[]) {
  const requests: WebhookRequest[] = [];
  return {
    requests,
    client: {
      userAgent: 'Hookline/test',
      post: async (request: WebhookRequest) => {
        requests.push(request);
        return answers[requests.length - 1]!;
      },
    },
  };
}

function destination(urls: string[], sharedSecret?: string): Pick<Destination, 'settings'> {
  return {
    settings: {
      ...(sharedSecret && { sharedSecret }),
      webhooks: urls.map((url) => ({ url, headers: { 'X-Static': url } })),
    },
  };
}

function capturedLogger(level = 'debug') {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}

const urls = ['https://a.example/hook?token=t0p', 'https://b.example:8443/hook', 'https://c.example/x'];

describe('deliverToDestination', () => {
  it('stops at the first 2xx and does not call later URLs', async () => {
    const { client, requests } = fakeClient([ok(500), ok(204), ok(200)]);
    const outcome = await deliverToDestination({
      client,
      destination: destination(urls),
      payload: '{"a":1}',
      clock,
    });
    expect(outcome).toEqual({
      kind: 'delivered',
      urlIndex: 1,
      status: 204,
      attempts: [
        { atMs: 1_000, urlIndex: 0, result: 'http_5xx', status: 500, durationMs: 12 },
        { atMs: 1_000, urlIndex: 1, result: 'success', status: 204, durationMs: 12 },
      ],
    });
    expect(requests.map((r) => r.url)).toEqual(urls.slice(0, 2));
  });

  it('skips a URL whose circuit is open, fails over, and tells the breakers what each call did', async () => {
    const { client, requests } = fakeClient([ok(503), ok(200)]);
    const recorded: string[] = [];
    const outcome = await deliverToDestination({
      client,
      destination: destination(urls),
      payload: '{}',
      clock,
      circuit: {
        allow: (urlIndex) => urlIndex !== 0, // URL 0 open
        record: (urlIndex, _url, result) => void recorded.push(`${urlIndex}:${result}`),
      },
    });
    expect(requests.map((r) => r.url)).toEqual([urls[1], urls[2]]);
    expect(outcome.attempts.map((a) => `${a.urlIndex}:${a.result}`)).toEqual([
      '0:circuit_open',
      '1:http_5xx',
      '2:success',
    ]);
    expect(recorded).toEqual(['1:http_5xx', '2:success']);
  });

  it('is a retriable failure when every URL is skipped for an open circuit', async () => {
    const { client, requests } = fakeClient([]);
    const outcome = await deliverToDestination({
      client,
      destination: destination(urls.slice(0, 2)),
      payload: '{}',
      clock,
      circuit: { allow: () => false, record: () => undefined },
    });
    expect(requests).toEqual([]);
    expect(outcome).toMatchObject({ kind: 'failed', retriable: true });
    expect(outcome.attempts.map((a) => a.result)).toEqual(['circuit_open', 'circuit_open']);
  });

  it('records a request not sent for want of a socket as deferred: retriable, no circuit counts it, next URL tried', async () => {
    const unsent: HttpAttempt = {
      kind: 'unsent',
      message: 'Not sent: no free connection within 5000 ms',
      durationMs: 5_000,
    };
    const { client, requests } = fakeClient([unsent, timeout]);
    const recorded: string[] = [];
    const outcome = await deliverToDestination({
      client,
      destination: { id: 'dst_1', ...destination(urls.slice(0, 2)) },
      payload: '{}',
      clock,
      circuit: {
        allow: () => true,
        record: (urlIndex, _url, result) => void recorded.push(`${urlIndex}:${result}`),
      },
    });
    expect(requests.map((r) => [r.destinationId, r.url])).toEqual([
      ['dst_1', urls[0]],
      ['dst_1', urls[1]],
    ]);
    expect(outcome).toMatchObject({ kind: 'failed', retriable: true });
    expect(outcome.attempts.map((a) => `${a.urlIndex}:${a.result}:${a.error}`)).toEqual([
      '0:deferred:Not sent: no free connection within 5000 ms',
      `1:timeout:${TIMEOUT_MESSAGE}`,
    ]);
    expect(recorded).toEqual(['1:timeout']);
  });

  it('signs the body once and sends the same bytes and signature to every URL', async () => {
    const { client, requests } = fakeClient([ok(503), ok(500), ok(200)]);
    const payload = '{"event":"Café","n":12345678901234567890}';
    await deliverToDestination({ client, destination: destination(urls, 'sh'), payload, clock });
    const expected = signatureFor('sh', payload);
    for (const [i, r] of requests.entries()) {
      expect(Buffer.from(r.body).toString('utf8')).toBe(payload);
      expect(r.headers).toEqual({
        'Content-Type': 'application/json',
        'User-Agent': 'Hookline/test',
        'X-Signature': expected,
        'X-Static': urls[i],
      });
    }
  });

  it('adds no X-Signature without a shared secret', async () => {
    const { client, requests } = fakeClient([ok()]);
    await deliverToDestination({ client, destination: destination(urls.slice(0, 1)), payload: '{}', clock });
    expect(Object.keys(requests[0]!.headers)).toEqual(['Content-Type', 'User-Agent', 'X-Static']);
  });

  it.each<[string, HttpAttempt[], boolean]>([
    ['every URL failed for good', [ok(410), tls, ok(302)], false],
    ['one URL can still succeed later', [ok(410), timeout, ok(404)], true],
    ['all retriable', [ok(500), ok(429), timeout], true],
  ])('is retriable only if some URL failed retriably: %s', async (_name, answers, retriable) => {
    const { client } = fakeClient(answers);
    const outcome = await deliverToDestination({
      client,
      destination: destination(urls),
      payload: '{}',
      clock,
    });
    expect(outcome).toMatchObject({ kind: 'failed', retriable });
    expect(outcome.attempts.map((a) => a.urlIndex)).toEqual([0, 1, 2]);
  });

  // Regression: the longest Retry-After was kept, so a backup URL that failed plainly waited for the
  // primary's hours-long Retry-After, or the task was dead-lettered beyond the cutoff at once.
  it.each<[string, HttpAttempt[], number | undefined]>([
    ['every URL sent one: the shortest', [retryAfter(429, 7_000), retryAfter(503, 30_000), ok(404)], 7_000],
    ['a URL failed plainly: none (the schedule)', [retryAfter(503, 5 * 3_600_000), ok(500)], undefined],
    ['a URL timed out: none (the schedule)', [retryAfter(429, 3 * 3_600_000), timeout], undefined],
  ])('takes the Retry-After of the earliest URL ready: %s', async (_, answers, retryAfterMs) => {
    const { client } = fakeClient(answers);
    const outcome = await deliverToDestination({
      client,
      destination: destination(urls.slice(0, answers.length)),
      payload: '{}',
      clock,
    });
    expect(outcome).toMatchObject({ kind: 'failed', retriable: true });
    expect(outcome.kind === 'failed' ? outcome.retryAfterMs : 'delivered').toBe(retryAfterMs);
  });

  it('records transport failures with their message and no status', async () => {
    const { client } = fakeClient([timeout]);
    const outcome = await deliverToDestination({
      client,
      destination: destination(urls.slice(0, 1)),
      payload: '{}',
      clock,
    });
    expect(outcome).toEqual({
      kind: 'failed',
      retriable: true,
      attempts: [{ atMs: 1_000, urlIndex: 0, result: 'timeout', durationMs: 5_000, error: TIMEOUT_MESSAGE }],
    });
  });

  it('logs one delivery.attempted line per URL, with the host only and never secrets or headers', async () => {
    const { client } = fakeClient([ok(500), timeout, ok(200)]);
    const { logger, lines } = capturedLogger();
    await deliverToDestination({
      client,
      destination: destination(urls, 'sup3r-s3cret'),
      payload: '{}',
      clock,
      logger,
      logFields: { messageId: 'm-1', destinationId: 'd-1' },
    });
    expect(lines.map((l) => [l.msg, l.level])).toEqual([
      ['delivery.attempted', 40],
      ['delivery.attempted', 40],
      ['delivery.attempted', 20],
    ]);
    expect(lines[0]).toMatchObject({
      messageId: 'm-1',
      destinationId: 'd-1',
      urlIndex: 0,
      urlHost: 'a.example',
      status: 500,
      result: 'http_5xx',
      retriable: true,
      durationMs: 12,
    });
    expect(lines[1]).toMatchObject({
      urlIndex: 1,
      urlHost: 'b.example:8443',
      result: 'timeout',
      retriable: true,
      durationMs: 5_000,
      error: expect.stringContaining('Timeout'),
    });
    expect(lines[1]).not.toHaveProperty('status');
    expect(lines[2]).toMatchObject({ urlIndex: 2, urlHost: 'c.example', status: 200, result: 'success' });
    const text = JSON.stringify(lines);
    for (const leak of [
      'sup3r-s3cret',
      't0p',
      '/hook',
      'X-Static',
      'X-Signature',
      signatureFor('sup3r-s3cret', '{}'),
    ]) {
      expect(text).not.toContain(leak);
    }
  });

  it('records a URL the SSRF guard refused as blocked_address, not retriable, and tries the next', async () => {
    const { client, requests } = fakeClient([blocked, ok(200)]);
    const outcome = await deliverToDestination({
      client,
      destination: destination(urls),
      payload: '{}',
      clock,
    });
    expect(outcome).toEqual({
      kind: 'delivered',
      urlIndex: 1,
      status: 200,
      attempts: [
        { atMs: 1_000, urlIndex: 0, result: 'blocked_address', durationMs: 1 },
        { atMs: 1_000, urlIndex: 1, result: 'success', status: 200, durationMs: 12 },
      ],
    });
    expect(requests).toHaveLength(2);

    const alone = await deliverToDestination({
      client: fakeClient([blocked]).client,
      destination: destination(urls.slice(0, 1)),
      payload: '{}',
      clock,
    });
    expect(alone).toEqual({
      kind: 'failed',
      retriable: false,
      attempts: [{ atMs: 1_000, urlIndex: 0, result: 'blocked_address', durationMs: 1 }],
    });
  });

  it('logs nothing for a success at the default level (info), and warns of a failure', async () => {
    const { client } = fakeClient([ok(503), ok(200)]);
    const { logger, lines } = capturedLogger('info');
    await deliverToDestination({ client, destination: destination(urls), payload: '{}', clock, logger });
    expect(lines.map((l) => [l.msg, l.level, l.status])).toEqual([['delivery.attempted', 40, 503]]);
  });

  it('logs a blocked URL with its index only: not even its host', async () => {
    const { client } = fakeClient([blocked]);
    const { logger, lines } = capturedLogger();
    await deliverToDestination({
      client,
      destination: destination(['http://metadata.internal/latest']),
      payload: '{}',
      clock,
      logger,
      logFields: { destinationId: 'd-1' },
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      msg: 'delivery.attempted',
      level: 40,
      destinationId: 'd-1',
      urlIndex: 0,
      result: 'blocked_address',
      retriable: false,
    });
    expect(JSON.stringify(lines)).not.toContain('metadata');
  });
});
