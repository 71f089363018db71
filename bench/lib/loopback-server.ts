import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A bench server listening on 127.0.0.1, port 0: its base URL, and a close that drops keep-alive sockets. */
export async function listenOnLoopback(server: Server): Promise<{ url: string; close(): Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
