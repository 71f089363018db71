/**
 * Real HTTP(S) receivers on 127.0.0.1 and a webhook client for the tests of delivery's HTTP side
 * (no Kafka): test/integration/delivery-http*.test.ts.
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { WebhookEntry } from '../../src/records/catalog-model';
import { deliverToDestination, type DeliveryOutcome } from '../../src/delivery/failover';
import { createWebhookClient, type WebhookClient } from '../../src/delivery/http/client';
import { createAddressPolicy } from '../../src/security/address-policy';
import { serialisePayload } from '../../src/routing/payload';
import { parseJson, type JsonObject } from '../../src/events/json';
import { projectRoot } from './project-root';

export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  /** The raw bytes as they arrived. */
  body: Buffer;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Connections accepted (a reused keep-alive socket counts once). */
  connections(): number;
  close(): Promise<void>;
}

export type Respond = (res: http.ServerResponse, req: Received) => void;

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
export function receiver(respond: Respond, tls?: { key: Buffer; cert: Buffer }): Promise<Receiver> {
  const received: Received[] = [];
  const onRequest = handler(received, respond);
  const server = tls ? https.createServer(tls, onRequest) : http.createServer(onRequest);
  return listen(server, tls ? 'https' : 'http', received);
}

export const status =
  (code: number, headers: http.OutgoingHttpHeaders = {}): Respond =>
  (res) => {
    res.writeHead(code, headers).end('ok');
  };

export function closeServer(server: http.Server | https.Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A port nothing listens on: bound once, then released. */
export async function freePort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export const hmac = (secret: string, body: Buffer) => createHmac('sha1', secret).update(body).digest('hex');
export const entry = (url: string, headers: Record<string, string> = {}): WebhookEntry => ({ url, headers });
export const version = (
  JSON.parse(readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')) as { version: string }
).version;

export const payload = serialisePayload({
  type: 'track',
  messageId: 'm-1',
  userId: 'u-1',
  event: 'Order Completed ☕',
  properties: parseJson('{"orderId":12345678901234567890,"total":1.0}') as JsonObject,
  timestamp: '2024-05-01T12:00:00.123Z',
  receivedAt: '2024-05-01T12:00:00.200Z',
  sourceId: 'src-1',
});

/** The receivers here listen on 127.0.0.1: the guard must let loopback through. */
export const loopbackAllowed = createAddressPolicy({ allowedNetworks: ['127.0.0.0/8'] });

/**
 * Webhook clients for one test file (created before its tests, closed after with every receiver):
 * `deliver` sends the fixed payload to some URLs; `shortClient()` times out after 300 ms.
 */
export function useWebhookClients() {
  let client: WebhookClient;
  let shortClient: WebhookClient;
  beforeAll(() => {
    client = createWebhookClient({ maxSocketsPerOrigin: 4, addressPolicy: loopbackAllowed });
    shortClient = createWebhookClient({ timeoutMs: 300, addressPolicy: loopbackAllowed });
  });
  afterAll(async () => {
    client.close();
    shortClient.close();
    await Promise.all(servers.filter((s) => s.listening).map(closeServer));
  });
  const deliver = (
    webhooks: WebhookEntry[],
    options: { sharedSecret?: string; via?: WebhookClient } = {},
  ): Promise<DeliveryOutcome> =>
    deliverToDestination({
      client: options.via ?? client,
      destination: {
        settings: { ...(options.sharedSecret && { sharedSecret: options.sharedSecret }), webhooks },
      },
      payload,
    });
  return { deliver, shortClient: () => shortClient };
}
