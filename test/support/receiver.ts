import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body bytes, as received. */
  body: Buffer;
  atMs: number;
}

/** How a receiver answers: a status (maybe late), never ('hang'), or by cutting the connection ('drop'). */
export type Responder = (
  req: ReceivedRequest,
  index: number,
) => { status: number; headers?: Record<string, string>; delayMs?: number } | 'hang' | 'drop';

/** A real HTTP receiver on 127.0.0.1 (port 0) that records every request it gets. */
export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /** TCP connections accepted, whether or not a request followed. */
  connections(): number;
  respondWith(responder: Responder): void;
  close(): Promise<void>;
}

export async function startReceiver(responder: Responder = () => ({ status: 200 })): Promise<Receiver> {
  let respond = responder;
  const requests: ReceivedRequest[] = [];
  const hanging = new Set<import('node:http').ServerResponse>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
        atMs: Date.now(),
      };
      requests.push(received);
      const answer = respond(received, requests.length - 1);
      if (answer === 'hang') {
        hanging.add(res);
        return;
      }
      if (answer === 'drop') {
        req.socket.destroy(); // the connection drops before any answer
        return;
      }
      const send = () => {
        res.writeHead(answer.status, answer.headers);
        res.end();
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    requests,
    connections: () => connections,
    respondWith: (r) => {
      respond = r;
    },
    close: () =>
      new Promise((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
