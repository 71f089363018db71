/**
 * A webhook receiver that fails each messageId once: the first request carrying a messageId gets
 * a 500 (retriable, no Retry-After), every later one a 200. It runs in a process of its own,
 * forked from this very file, so neither Hookline (the bench process) nor the load generator
 * (the harness process) shares its event loop; it answers over IPC with what it saw.
 *
 * Times are performance.now() of the receiver process; only differences (retry arrival − first
 * arrival, per messageId) leave it, so no clock is compared across processes.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

const CHILD_FLAG = '--bench-flaky-receiver';
const CALL_TIMEOUT_MS = 30_000;

export interface FlakyStats {
  /** This run's messageIds seen (each failed once). */
  failed: number;
  /** This run's messageIds seen a second time (answered 200). */
  retried: number;
  /** Requests beyond the second for one of this run's messageIds (should stay 0). */
  extra: number;
  /** Requests of other runs (warm-up stragglers), answered the same way, not counted. */
  ignored: number;
  /** messageIds of any run that failed and have not come back yet. */
  awaitingRetry: number;
}

interface Api {
  url: () => string;
  reset: (p: { runId: string }) => void;
  stats: () => FlakyStats;
  /** ms from the failed first attempt to the retry, per retried messageId of this run. */
  gaps: () => number[];
}
type Method = keyof Api;
type Request = { id: number; method: Method; params: unknown };
type Response = { id: number; result?: unknown; error?: string };

/** The bench's handle on the receiver process. */
export class FlakyReceiver {
  private nextId = 0;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  /** Where Hookline posts: `http://127.0.0.1:<port>/hook`. */
  url = '';

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (m: Response) => {
      const call = this.waiting.get(m.id);
      if (!call) return;
      this.waiting.delete(m.id);
      if (m.error !== undefined) call.reject(new Error(`flaky receiver: ${m.error}`));
      else call.resolve(m.result);
    });
    child.on('exit', (code, signal) => {
      for (const call of this.waiting.values())
        call.reject(new Error(`flaky receiver exited (${signal ?? code})`));
      this.waiting.clear();
    });
  }

  static async start(): Promise<FlakyReceiver> {
    // This very file: compiled JavaScript (`npm run bench`), or TypeScript through the parent's tsx.
    const receiver = new FlakyReceiver(
      fork(__filename, [CHILD_FLAG], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }),
    );
    receiver.url = await receiver.call('url', undefined);
    return receiver;
  }

  reset(runId: string): Promise<void> {
    return this.call('reset', { runId });
  }

  stats(): Promise<FlakyStats> {
    return this.call('stats', undefined);
  }

  gaps(): Promise<number[]> {
    return this.call('gaps', undefined);
  }

  stop(): void {
    if (this.child.connected) this.child.disconnect();
  }

  private call<M extends Method>(method: M, params: Parameters<Api[M]>[0]): Promise<ReturnType<Api[M]>> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`flaky receiver call ${method} took over ${CALL_TIMEOUT_MS} ms`));
      }, CALL_TIMEOUT_MS);
      this.waiting.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v as ReturnType<Api[M]>);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      const request: Request = { id, method, params };
      this.child.send(request);
    });
  }
}

/** The webhook body is the event's payload: `{"version":1,"type":"track","messageId":"...",...}`. */
const MESSAGE_ID = /"messageId":"([^"\\]*)"/;

async function runChild(): Promise<void> {
  /** performance.now() of each messageId's failed first attempt; -1 once it came back. */
  const firstAt = new Map<string, number>();
  let awaitingRetry = 0;
  let marker = '\u0000';
  let stats = { failed: 0, retried: 0, extra: 0, ignored: 0 };
  let gaps: number[] = [];

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      const body = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
      const messageId = MESSAGE_ID.exec(body)?.[1];
      if (messageId === undefined) {
        res.writeHead(400, { 'content-length': 0 }).end();
        return;
      }
      const ours = messageId.startsWith(marker);
      const first = firstAt.get(messageId);
      if (first === undefined) {
        firstAt.set(messageId, at);
        awaitingRetry++;
        if (ours) stats.failed++;
        else stats.ignored++;
        res.writeHead(500, { 'content-length': 0 }).end();
        return;
      }
      if (first >= 0) {
        firstAt.set(messageId, -1);
        awaitingRetry--;
        if (ours) {
          stats.retried++;
          gaps.push(at - first);
        } else stats.ignored++;
      } else if (ours) stats.extra++;
      else stats.ignored++;
      res.writeHead(200, { 'content-length': 0 }).end();
    });
  });
  server.keepAliveTimeout = 65_000;
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;

  const api: Api = {
    url: () => url,
    reset: ({ runId }) => {
      marker = `${runId}-`;
      stats = { failed: 0, retried: 0, extra: 0, ignored: 0 };
      gaps = [];
    },
    stats: () => ({ ...stats, awaitingRetry }),
    gaps: () => gaps,
  };
  process.on('message', (m: Request) => {
    let response: Response;
    try {
      response = { id: m.id, result: (api[m.method] as (p: unknown) => unknown)(m.params) };
    } catch (err) {
      response = { id: m.id, error: err instanceof Error ? err.message : String(err) };
    }
    process.send?.(response);
  });
  process.on('disconnect', () => {
    server.close();
    for (const s of sockets) s.destroy();
    process.exit(0);
  });
}

if (process.argv.includes(CHILD_FLAG)) {
  runChild().catch((err: unknown) => {
    process.stderr.write(`flaky receiver failed: ${String(err)}\n`);
    process.exit(1);
  });
}
