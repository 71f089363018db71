import net from 'node:net';

/** Loopback only: the local stack is never reachable from outside this machine. */
export const LOCAL_HOST = '127.0.0.1';

/**
 * `count` distinct free TCP ports on `host`, chosen by the kernel. They are released before
 * returning, so another process may grab one before the stack binds it: callers retry on a
 * bind failure (see isBindFailure).
 */
export async function findFreePorts(options: { count: number; host?: string }): Promise<number[]> {
  const host = options.host ?? LOCAL_HOST;
  const servers: net.Server[] = [];
  try {
    const ports: number[] = [];
    for (let i = 0; i < options.count; i++) {
      const server = net.createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen({ port: 0, host, exclusive: true }, resolve);
      });
      ports.push((server.address() as net.AddressInfo).port);
    }
    return ports;
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
}

/** True when a process log says it could not bind its port (someone took it meanwhile). */
export function isBindFailure(logTail: string): boolean {
  return /Address already in use|BindException|seems to be in use/i.test(logTail);
}
