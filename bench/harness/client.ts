import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type {
  HarnessMethod,
  HarnessParams,
  HarnessRequest,
  HarnessResponse,
  HarnessResult,
} from './protocol';

/** Longest any harness call may take; load calls carry their own, shorter, deadlines. */
const CALL_TIMEOUT_MS = 120_000;

/**
 * The bench's handle on the harness process (harness/child.ts): typed calls over IPC. The child
 * is the same kind of file as this one (the compiled `.js` of `npm run bench`, or `.ts` through
 * tsx, whose execArgv it inherits).
 */
export class Harness {
  private nextId = 0;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (message: HarnessResponse) => {
      const call = this.waiting.get(message.id);
      if (!call) return;
      this.waiting.delete(message.id);
      if (message.error !== undefined) call.reject(new Error(`harness: ${message.error}`));
      else call.resolve(message.result);
    });
    child.on('exit', (code, signal) => {
      for (const call of this.waiting.values()) call.reject(new Error(`harness exited (${signal ?? code})`));
      this.waiting.clear();
    });
  }

  static start(): Harness {
    const child = fork(path.join(__dirname, `child${path.extname(__filename)}`), [], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    return new Harness(child);
  }

  /** The harness process id (for CPU accounting or profiling by hand). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  call<M extends HarnessMethod>(method: M, params: HarnessParams<M>): Promise<HarnessResult<M>> {
    const id = this.nextId++;
    return new Promise<HarnessResult<M>>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`harness call ${method} took over ${CALL_TIMEOUT_MS} ms`));
      }, CALL_TIMEOUT_MS);
      this.waiting.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v as HarnessResult<M>);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      const request: HarnessRequest = { id, method, params };
      this.child.send(request);
    });
  }

  stop(): void {
    if (this.child.connected) this.child.disconnect();
  }
}
