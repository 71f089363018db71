/**
 * The HTTP side of delivery against real receivers on 127.0.0.1 (no Kafka): bodies, signatures,
 * headers, URL failover, timeouts, refused connections, redirects, 4xx/429, keep-alive.
 */
import {
  receiver,
  status,
  freePort,
  hmac,
  entry,
  version,
  payload,
  useWebhookClients,
} from '../support/webhook-http';

const { deliver, shortClient } = useWebhookClients();

describe('delivery over HTTP', () => {
  it('POSTs the exact body, signed over the raw bytes, with our headers and the static ones', async () => {
    const r = await receiver(status(200));
    const outcome = await deliver([entry(r.url, { Authorization: 'Bearer abc', 'X-Tenant': 't-1' })], {
      sharedSecret: 'sh4red',
    });

    expect(outcome).toMatchObject({ kind: 'delivered', urlIndex: 0, status: 200 });
    expect(r.received).toHaveLength(1);
    const [got] = r.received;
    expect(got!.method).toBe('POST');
    expect(got!.url).toBe('/hook');
    expect(got!.body.equals(Buffer.from(payload, 'utf8'))).toBe(true);
    expect(got!.body.toString('utf8')).toContain('"orderId":12345678901234567890,"total":1.0');
    expect(got!.headers['x-signature']).toBe(hmac('sh4red', got!.body));
    expect(got!.headers['content-type']).toBe('application/json');
    expect(got!.headers['user-agent']).toBe(`Hookline/${version}`);
    expect(got!.headers['authorization']).toBe('Bearer abc');
    expect(got!.headers['x-tenant']).toBe('t-1');
    expect(got!.headers['content-length']).toBe(String(Buffer.byteLength(payload)));
    expect(got!.headers).not.toHaveProperty('accept-encoding');
  });

  it('sends no X-Signature without a shared secret', async () => {
    const r = await receiver(status(204));
    expect(await deliver([entry(r.url)])).toMatchObject({ kind: 'delivered', status: 204 });
    expect(r.received[0]!.headers).not.toHaveProperty('x-signature');
  });

  it('fails over in order: 500 then 200, and the third URL is never called', async () => {
    const [first, second, third] = await Promise.all([
      receiver(status(500)),
      receiver(status(200)),
      receiver(status(200)),
    ]);
    const outcome = await deliver([entry(first.url), entry(second.url), entry(third.url)], {
      sharedSecret: 's',
    });

    expect(outcome).toMatchObject({
      kind: 'delivered',
      urlIndex: 1,
      status: 200,
      attempts: [
        { urlIndex: 0, result: 'http_5xx', status: 500 },
        { urlIndex: 1, result: 'success', status: 200 },
      ],
    });
    expect(first.received).toHaveLength(1);
    expect(second.received).toHaveLength(1);
    expect(third.received).toHaveLength(0);
    expect(second.received[0]!.headers['x-signature']).toBe(first.received[0]!.headers['x-signature']);
  });

  it('times out a receiver that never answers, after timeoutMs, retriably', async () => {
    const r = await receiver(() => undefined);
    const outcome = await deliver([entry(r.url)], { via: shortClient() });

    expect(outcome).toMatchObject({
      kind: 'failed',
      retriable: true,
      attempts: [{ urlIndex: 0, result: 'timeout' }],
    });
    expect(outcome.attempts[0]!.durationMs).toBeGreaterThanOrEqual(250);
    expect(outcome.attempts[0]!.durationMs).toBeLessThan(3_000);
    expect(outcome.attempts[0]).not.toHaveProperty('status');
  });

  it('reports a refused connection as a retriable connection failure', async () => {
    const port = await freePort();
    const outcome = await deliver([entry(`http://127.0.0.1:${port}/hook`)]);
    expect(outcome).toMatchObject({
      kind: 'failed',
      retriable: true,
      attempts: [{ result: 'connection', error: expect.stringContaining('ECONNREFUSED') }],
    });
  });

  it('does not follow a 302: the redirect target is never called, and it is not retried', async () => {
    const target = await receiver(status(200));
    const redirecting = await receiver(status(302, { Location: target.url }));
    const outcome = await deliver([entry(redirecting.url)]);

    expect(outcome).toMatchObject({
      kind: 'failed',
      retriable: false,
      attempts: [{ result: 'http_4xx', status: 302 }],
    });
    expect(target.received).toHaveLength(0);
  });

  it('treats 410 as final', async () => {
    const r = await receiver(status(410));
    expect(await deliver([entry(r.url)])).toMatchObject({
      kind: 'failed',
      retriable: false,
      attempts: [{ result: 'http_4xx', status: 410 }],
    });
  });

  it('honours Retry-After on a 429', async () => {
    const r = await receiver(status(429, { 'Retry-After': '7' }));
    const outcome = await deliver([entry(r.url)]);
    expect(outcome).toMatchObject({
      kind: 'failed',
      retriable: true,
      retryAfterMs: 7_000,
      attempts: [{ result: 'http_4xx', status: 429 }],
    });
  });

  it('stops reading a response at the cap: an endless body neither blocks nor fails the delivery', async () => {
    // 1 MiB and never ended: without the cap the read would last until the 5 s timeout.
    const r = await receiver((res) => void res.writeHead(200).write(Buffer.alloc(1024 * 1024, 'x')));
    const outcome = await deliver([entry(r.url)]);
    expect(outcome).toMatchObject({ kind: 'delivered', status: 200 });
    expect(outcome.attempts[0]!.durationMs).toBeLessThan(2_000);
  });

  it('reuses a keep-alive socket across deliveries to one origin', async () => {
    const r = await receiver(status(200));
    await deliver([entry(r.url)]);
    // undici frees a socket for reuse one event-loop turn after its response (a server that said
    // keep-alive and closed anyway shows up meanwhile); a request in the same turn opens another,
    // up to maxSocketsPerOrigin.
    await new Promise((resolve) => setImmediate(resolve));
    await deliver([entry(r.url)]);
    expect(r.received).toHaveLength(2);
    expect(r.connections()).toBe(1);
  });
});
