import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { ReceiverStats } from './protocol';

export interface ReceiverOptions {
  /** Accept and read every request, never answer (until closed). */
  hang: boolean;
  /** Parse each body for `properties.benchSentAt` and keep arrival − sentAt. */
  recordLatency: boolean;
}

/**
 * A webhook receiver on 127.0.0.1:0: answers 200 with an empty body as soon as the request is
 * read (or never, when hanging), and counts what arrives. Deliberately minimal, so the
 * receiver is never the bottleneck it measures.
 */
export class BenchReceiver {
  private count = 0;
  private firstAt: number | null = null;
  private lastAt: number | null = null;
  private target: number | undefined;
  /** Only requests whose body holds this run's marker count; others (stragglers) are ignored. */
  private runMarker: Buffer | undefined;
  private ignored = 0;
  private targetReachedAt: number | null = null;
  private latencyMs: number[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly hanging = new Set<ServerResponse>();

  private constructor(
    readonly id: number,
    private readonly server: Server,
    readonly url: string,
    private readonly options: ReceiverOptions,
  ) {
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.arrived(chunks);
        if (this.options.hang) {
          this.hanging.add(res);
          return;
        }
        res.writeHead(200, { 'content-length': 0 });
        res.end();
      });
    });
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  static async start(id: number, options: ReceiverOptions): Promise<BenchReceiver> {
    const server = createServer();
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return new BenchReceiver(id, server, `http://127.0.0.1:${port}/hook`, options);
  }

  private arrived(chunks: Buffer[]): void {
    const at = performance.now();
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    if (this.runMarker && body.indexOf(this.runMarker) === -1) {
      this.ignored++;
      return;
    }
    this.count++;
    this.firstAt ??= at;
    this.lastAt = at;
    if (this.target !== undefined && this.count === this.target) this.targetReachedAt = at;
    if (!this.options.recordLatency) return;
    const payload = JSON.parse(body.toString('utf8')) as { properties?: { benchSentAt?: unknown } };
    const sentAt = payload.properties?.benchSentAt;
    if (typeof sentAt === 'number') this.latencyMs.push(at - sentAt);
  }

  reset(target?: number, runId?: string): void {
    this.runMarker = runId === undefined ? undefined : Buffer.from(`"${runId}-`, 'utf8');
    this.ignored = 0;
    this.count = 0;
    this.firstAt = null;
    this.lastAt = null;
    this.target = target;
    this.targetReachedAt = null;
    this.latencyMs = [];
  }

  stats(): ReceiverStats {
    return {
      id: this.id,
      count: this.count,
      ignored: this.ignored,
      firstAt: this.firstAt,
      lastAt: this.lastAt,
      targetReachedAt: this.targetReachedAt,
    };
  }

  latencies(): number[] {
    return this.latencyMs;
  }

  close(): void {
    if (!this.server.listening) return;
    this.server.close();
    for (const res of this.hanging) res.destroy();
    for (const socket of this.sockets) socket.destroy();
  }
}
