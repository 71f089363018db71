import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

/**
 * When a request arrived, as far as this process can see: for the first request on a
 * connection, when the connection was accepted (so the time its bytes waited for a busy event
 * loop counts); for later ones on a keep-alive connection, when its headers were parsed.
 * Monotonic milliseconds (`performance.now()`). What waits in the kernel before `accept()` is
 * invisible to any process; the admission queue keeps that short by answering early.
 */
const acceptedAt = new WeakMap<Socket, number>();
const arrivedAt = new WeakMap<IncomingMessage, number>();

/** Records arrival times on `server`; call before it listens. */
export function trackArrivals(server: Server): void {
  server.on('connection', (socket: Socket) => acceptedAt.set(socket, performance.now()));
  server.prependListener('request', (req: IncomingMessage) => {
    const accepted = acceptedAt.get(req.socket);
    if (accepted !== undefined) acceptedAt.delete(req.socket);
    arrivedAt.set(req, accepted ?? performance.now());
  });
}

/** Seconds since `req` arrived (now, when its server did not track arrivals). */
export function secondsSinceArrival(req: IncomingMessage): number {
  const now = performance.now();
  return (now - (arrivedAt.get(req) ?? now)) / 1_000;
}
