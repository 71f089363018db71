/**
 * The webhook client's socket pools (real receivers on 127.0.0.1:0, no Kafka): one pool per
 * destination and origin, and a deadline that counts the receiver's time only, never a wait for a
 * socket. Regression: several destinations on one receiver host shared one pool per host:port, and
 * requests queued behind other destinations' timed out unseen by the receiver, as `timeout`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { createWebhookClient, type WebhookClient } from '../../../../src/delivery/http/client';
import { DestinationPools } from '../../../../src/delivery/http/pools';
import { createAddressPolicy } from '../../../../src/security/address-policy';
import { eventually } from '../../../support/eventually';

const loopback = createAddressPolicy({ allowedNetworks: ['127.0.0.0/8'] });
const servers: http.Server[] = [];
const clients: WebhookClient[] = [];

/** A receiver that answers each path as `respond` says; `seen` lists the paths it was sent. */
async function receiver(respond: (path: string, res: http.ServerResponse) => void) {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    req.resume().on('end', () => {
      seen.push(req.url ?? '');
      respond(req.url ?? '', res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, seen };
}

function client(maxSocketsPerOrigin: number, timeoutMs = 400) {
  const c = createWebhookClient({ timeoutMs, maxSocketsPerOrigin, addressPolicy: loopback });
  clients.push(c);
  return c;
}

const post = (c: WebhookClient, destinationId: string, url: string) =>
  c.post({ destinationId, url, headers: {}, body: '{}' });

afterAll(async () => {
  clients.forEach((c) => c.close());
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

describe('the webhook client socket pools', () => {
  it('does not make a destination wait for the sockets another destination on the same host holds', async () => {
    const r = await receiver((path, res) => {
      if (path === '/fast') res.writeHead(200).end();
      // '/hang' never answers
    });
    const c = client(1);
    const [hung, fast] = await Promise.all([
      post(c, 'dst_a', `${r.origin}/hang`),
      post(c, 'dst_b', `${r.origin}/fast`),
    ]);
    expect(hung).toMatchObject({ kind: 'error', result: 'timeout' });
    expect(fast).toMatchObject({ kind: 'response', status: 200 });
  });

  it("starts a request's deadline when it gets a socket, not when it is queued for one", async () => {
    // Each answer takes 250 ms; the second request waits for the first's socket: 500 ms in all,
    // more than the 400 ms deadline, but the receiver took 250 ms for each.
    const r = await receiver((_path, res) => void setTimeout(() => res.writeHead(200).end(), 250));
    const c = client(1);
    const attempts = await Promise.all([
      post(c, 'dst_a', `${r.origin}/1`),
      post(c, 'dst_a', `${r.origin}/2`),
    ]);
    expect(attempts).toMatchObject([
      { kind: 'response', status: 200 },
      { kind: 'response', status: 200 },
    ]);
  });

  it('sends a request queued behind a hanging one when that one times out: the receiver sees both', async () => {
    const r = await receiver(() => undefined); // never answers
    const c = client(1, 300);
    const attempts = await Promise.all([
      post(c, 'dst_a', `${r.origin}/1`),
      post(c, 'dst_a', `${r.origin}/2`),
    ]);
    expect(attempts).toMatchObject([
      { kind: 'error', result: 'timeout' },
      { kind: 'error', result: 'timeout' },
    ]);
    expect(r.seen).toEqual(['/1', '/2']);
  });
});

describe('DestinationPools', () => {
  const poolOptions: Pool.Options = { keepAliveTimeout: 4_000, headersTimeout: 1_000, bodyTimeout: 1_000 };

  /** Runs one request on the pool of `destinationId` and resolves with its status. */
  const request = (pools: DestinationPools, destinationId: string, origin: string) =>
    new Promise<number | 'unsent'>((resolve, reject) => {
      pools.acquire(
        destinationId,
        origin,
        (pool, release) => {
          pool
            .request({ path: '/', method: 'POST', body: '{}' })
            .then(async (res) => {
              await res.body.dump();
              release();
              resolve(res.statusCode);
            })
            .catch((err: unknown) => {
              release();
              reject(err);
            });
        },
        () => resolve('unsent'),
      );
    });

  it('keeps one pool per destination and origin, and closes a pool once its last socket closed', async () => {
    // The receiver closes every connection after its answer: the pools go idle at once.
    const r = await receiver((_path, res) => res.writeHead(204, { connection: 'close' }).end());
    const pools = new DestinationPools({ connections: 2, maxWaitMs: 1_000, poolOptions });
    const done = Promise.all([request(pools, 'a', r.origin), request(pools, 'b', r.origin)]);
    expect(pools.size).toBe(2);
    expect(await done).toEqual([204, 204]);
    await eventually(() => pools.size === 0, { timeoutMs: 5_000, what: 'the idle pools closed' });
    expect(await request(pools, 'a', r.origin)).toBe(204); // a new pool when called again
    pools.destroy();
  });

  it('gives up unsent a request that found no free socket within maxWaitMs, and starts it never', async () => {
    const r = await receiver(
      (path, res) => void (path === '/' && setTimeout(() => res.writeHead(200).end(), 400)),
    );
    const pools = new DestinationPools({ connections: 1, maxWaitMs: 100, poolOptions });
    const results = await Promise.all([request(pools, 'a', r.origin), request(pools, 'a', r.origin)]);
    expect(results).toEqual([200, 'unsent']);
    expect(r.seen).toEqual(['/']);
    pools.destroy();
  });
});
