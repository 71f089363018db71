/**
 * The webhook client's one deadline per attempt (no Kafka): it covers the connection, the answer
 * and the body (not a wait for a pooled socket: test/unit/delivery/http/client-pools.test.ts), and
 * a receiver that answered is a response even when its body then fails.
 */
import { createWebhookClient, type WebhookClient } from '../../src/delivery/http/client';
import { loopbackAllowed, receiver, useWebhookClients } from '../support/webhook-http';

useWebhookClients(); // closes the receivers after the file

describe('the webhook client deadline', () => {
  const clients: WebhookClient[] = [];
  const client = (maxSocketsPerOrigin = 4) => {
    const c = createWebhookClient({ timeoutMs: 300, maxSocketsPerOrigin, addressPolicy: loopbackAllowed });
    clients.push(c);
    return c;
  };
  afterAll(() => clients.forEach((c) => c.close()));
  const post = (c: WebhookClient, url: string) => c.post({ url, headers: {}, body: Buffer.from('{}') });
  const timeout = { kind: 'error', result: 'timeout', retriable: true };

  it('times out a receiver that answers after the deadline', async () => {
    const r = await receiver((res) => void setTimeout(() => res.writeHead(200).end(), 1_500).unref());
    expect(await post(client(), r.url)).toMatchObject(timeout);
  });

  it('does not count the wait for a pooled socket: a request queued behind a hanging one is sent, then times out', async () => {
    const r = await receiver(() => undefined);
    const c = client(1);
    const attempts = await Promise.all([post(c, r.url), post(c, r.url)]);
    expect(attempts).toMatchObject([timeout, timeout]);
    expect(r.received).toHaveLength(2);
  });

  it('ends at the deadline a response whose body trickles: the receiver has answered', async () => {
    const r = await receiver((res) => {
      res.writeHead(200, { 'content-length': '1000' }).write('x');
      const tick = setInterval(() => (res.destroyed ? clearInterval(tick) : res.write('x')), 100);
      res.once('close', () => clearInterval(tick));
    });
    expect(await post(client(), r.url)).toMatchObject({ kind: 'response', status: 200 });
  });

  it('keeps the status of a response dropped mid-body', async () => {
    const r = await receiver((res) => {
      res.writeHead(503, { 'content-length': '100', 'retry-after': '3' }).write('partial');
      setImmediate(() => res.socket?.destroy());
    });
    expect(await post(client(), r.url)).toMatchObject({ kind: 'response', status: 503, retryAfterMs: 3_000 });
  });

  it('reports a connection dropped before any answer as a retriable connection failure', async () => {
    const r = await receiver((res) => void res.socket?.destroy());
    expect(await post(client(), r.url)).toMatchObject({
      kind: 'error',
      result: 'connection',
      retriable: true,
    });
  });

  it('reports a malformed URL as a failed attempt, not an exception', async () => {
    expect(await post(client(), 'not a url')).toMatchObject({ kind: 'error', result: 'connection' });
  });
});
