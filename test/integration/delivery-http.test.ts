/**
 * The HTTP side of delivery against real receivers on 127.0.0.1 (no Kafka): bodies, signatures,
 * headers, URL failover, timeouts, refused connections, redirects, 4xx/429, TLS verification, and
 * the SSRF guard (literal addresses, names, DNS rebinding).
 */
import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { WebhookEntry } from '../../src/records/catalog-model';
import { deliverToDestination, type DeliveryOutcome } from '../../src/delivery/failover';
import { createWebhookClient, type WebhookClient } from '../../src/delivery/http/client';
import type { ResolvedAddress } from '../../src/delivery/http/guarded-lookup';
import { createAddressPolicy } from '../../src/security/address-policy';
import { serialisePayload } from '../../src/routing/payload';
import { parseJson, type JsonObject } from '../../src/events/json';

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  /** The raw bytes as they arrived. */
  body: Buffer;
}

interface Receiver {
  url: string;
  received: Received[];
  /** Connections accepted (a reused keep-alive socket counts once). */
  connections(): number;
  close(): Promise<void>;
}

type Respond = (res: http.ServerResponse, req: Received) => void;

const servers: (http.Server | https.Server)[] = [];

function listen(
  server: http.Server | https.Server,
  scheme: 'http' | 'https',
  received: Received[],
): Promise<Receiver> {
  servers.push(server);
  let connections = 0;
  server.on(scheme === 'https' ? 'secureConnection' : 'connection', () => connections++);
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `${scheme}://127.0.0.1:${port}/hook`,
        received,
        connections: () => connections,
        close: () => closeServer(server),
      });
    });
  });
}

function handler(received: Received[], respond: Respond): http.RequestListener {
  return (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      received.push(r);
      respond(res, r);
    });
  };
}

/** A receiver on 127.0.0.1:0; HTTPS with the given key and certificate. */
function receiver(respond: Respond, tls?: { key: Buffer; cert: Buffer }): Promise<Receiver> {
  const received: Received[] = [];
  const onRequest = handler(received, respond);
  const server = tls ? https.createServer(tls, onRequest) : http.createServer(onRequest);
  return listen(server, tls ? 'https' : 'http', received);
}

const status =
  (code: number, headers: http.OutgoingHttpHeaders = {}): Respond =>
  (res) => {
    res.writeHead(code, headers).end('ok');
  };

function closeServer(server: http.Server | https.Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A port nothing listens on: bound once, then released. */
async function freePort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const hmac = (secret: string, body: Buffer) => createHmac('sha1', secret).update(body).digest('hex');
const entry = (url: string, headers: Record<string, string> = {}): WebhookEntry => ({ url, headers });
const version = (
  JSON.parse(readFileSync(path.join(__dirname, '../../package.json'), 'utf8')) as { version: string }
).version;

const payload = serialisePayload({
  type: 'track',
  messageId: 'm-1',
  userId: 'u-1',
  event: 'Order Completed ☕',
  properties: parseJson('{"orderId":12345678901234567890,"total":1.0}') as JsonObject,
  timestamp: '2024-05-01T12:00:00.123Z',
  receivedAt: '2024-05-01T12:00:00.200Z',
  sourceId: 'src-1',
});

let client: WebhookClient;
let shortClient: WebhookClient;

function deliver(
  webhooks: WebhookEntry[],
  options: { sharedSecret?: string; via?: WebhookClient } = {},
): Promise<DeliveryOutcome> {
  return deliverToDestination({
    client: options.via ?? client,
    destination: {
      settings: { ...(options.sharedSecret && { sharedSecret: options.sharedSecret }), webhooks },
    },
    payload,
  });
}

/** The receivers here listen on 127.0.0.1: the guard must let loopback through. */
const loopbackAllowed = createAddressPolicy({ allowedNetworks: ['127.0.0.0/8'] });

beforeAll(() => {
  client = createWebhookClient({ maxSocketsPerOrigin: 4, addressPolicy: loopbackAllowed });
  shortClient = createWebhookClient({ timeoutMs: 300, addressPolicy: loopbackAllowed });
});

afterAll(async () => {
  client.close();
  shortClient.close();
  await Promise.all(servers.filter((s) => s.listening).map(closeServer));
});

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
    const outcome = await deliver([entry(r.url)], { via: shortClient });

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
    await deliver([entry(r.url)]);
    expect(r.received).toHaveLength(2);
    expect(r.connections()).toBe(1);
  });
});

describe('the SSRF guard', () => {
  const clients: WebhookClient[] = [];
  const guarded = (options: Parameters<typeof createWebhookClient>[0] = {}) => {
    const c = createWebhookClient(options);
    clients.push(c);
    return c;
  };
  afterAll(() => clients.forEach((c) => c.close()));

  const port = (r: Receiver) => new URL(r.url).port;
  const refused = {
    kind: 'failed',
    retriable: false,
    attempts: [{ urlIndex: 0, result: 'blocked_address' }],
  };

  it.each([
    'http://127.0.0.1:PORT/hook',
    'http://2130706433:PORT/hook',
    'http://0x7f.1:PORT/hook',
    'http://0177.0.0.1:PORT/hook',
    'http://127.1:PORT/hook',
    'http://[::ffff:127.0.0.1]:PORT/hook',
  ])('refuses %s: no connection reaches the receiver', async (form) => {
    const r = await receiver(status(200));
    const outcome = await deliver([entry(form.replace('PORT', port(r)))], { via: guarded() });
    expect(outcome).toMatchObject(refused);
    expect(outcome.attempts[0]).not.toHaveProperty('error');
    expect(outcome.attempts[0]).not.toHaveProperty('status');
    expect(r.connections()).toBe(0);
  });

  it('refuses localhost: the name resolves to loopback, and no connection is opened', async () => {
    const r = await receiver(status(200));
    const outcome = await deliver([entry(`http://localhost:${port(r)}/hook`)], { via: guarded() });
    expect(outcome).toMatchObject(refused);
    expect(outcome.attempts[0]).not.toHaveProperty('error');
    expect(r.connections()).toBe(0);
  });

  it('DNS rebinding: connects to the address it checked, and refuses the name once it rebinds', async () => {
    // The receiver answers each request on a fresh connection, so every delivery looks the name up.
    const r = await receiver((res) => void res.writeHead(200, { connection: 'close' }).end('ok'));
    const answers: ResolvedAddress[][] = [
      [{ address: '127.0.0.1', family: 4 }],
      [
        { address: '127.0.0.1', family: 4 },
        { address: '10.0.0.5', family: 4 },
      ],
      [{ address: '169.254.169.254', family: 4 }],
    ];
    const resolve = jest.fn(async () => answers.shift()!);
    const c = guarded({ addressPolicy: loopbackAllowed, resolve });
    // `.invalid` never resolves through the system: only the checked answer can be connected to.
    const url = `http://rebind.invalid:${port(r)}/hook`;

    expect(await deliver([entry(url)], { via: c })).toMatchObject({ kind: 'delivered', status: 200 });
    expect(resolve).toHaveBeenCalledTimes(1);
    expect(r.received[0]!.headers.host).toBe(`rebind.invalid:${port(r)}`);
    expect(r.connections()).toBe(1);

    // Now one of its addresses is private, then it rebinds to the metadata service: refused.
    expect(await deliver([entry(url)], { via: c })).toMatchObject(refused);
    expect(await deliver([entry(url)], { via: c })).toMatchObject(refused);
    expect(resolve).toHaveBeenCalledTimes(3);
    expect(r.connections()).toBe(1);
  });

  it('delivers to loopback once HOOKLINE_ALLOWED_NETWORKS-style exceptions allow it', async () => {
    const r = await receiver(status(200));
    const allowLocalhost = createAddressPolicy({ allowedNetworks: ['127.0.0.0/8', '::1/128'] });
    const outcome = await deliver([entry(`http://localhost:${port(r)}/hook`)], {
      via: guarded({ addressPolicy: allowLocalhost }),
    });
    expect(outcome).toMatchObject({ kind: 'delivered', status: 200 });
    expect(r.connections()).toBe(1);
  });
});

describe('delivery over HTTPS with a self-signed certificate', () => {
  let dir: string;
  let key: Buffer;
  let cert: Buffer;

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'hookline-tls-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-days',
        '1',
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    key = readFileSync(path.join(dir, 'key.pem'));
    cert = readFileSync(path.join(dir, 'cert.pem'));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses it: result tls, not retriable, and the receiver never sees a request', async () => {
    const r = await receiver(status(200), { key, cert });
    const outcome = await deliver([entry(r.url)], { sharedSecret: 's' });

    expect(outcome).toMatchObject({
      kind: 'failed',
      retriable: false,
      attempts: [{ urlIndex: 0, result: 'tls' }],
    });
    expect(outcome.attempts[0]!.error).toMatch(/self[- ]signed/i);
    expect(r.received).toHaveLength(0);
    expect(r.connections()).toBe(0); // the handshake never completed
  });

  it('still fails over to the next URL after a TLS refusal', async () => {
    const insecure = await receiver(status(200), { key, cert });
    const plain = await receiver(status(200));
    const outcome = await deliver([entry(insecure.url), entry(plain.url)]);

    expect(outcome).toMatchObject({
      kind: 'delivered',
      urlIndex: 1,
      attempts: [{ result: 'tls' }, { result: 'success' }],
    });
    expect(insecure.received).toHaveLength(0);
  });
});
