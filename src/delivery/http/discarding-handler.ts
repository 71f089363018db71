/** How one webhook request ended, as its handler saw it. */
export type RequestEnd =
  | {
      answered: true;
      status: number;
      /** The first Retry-After header, as sent. */
      retryAfter: string | undefined;
      /** The body passed `maxBytes`: the socket was dropped instead of read on. */
      bodyOverCap: boolean;
    }
  | { answered: false; error: unknown };

type Abort = (reason: Error) => void;

/** Why a request whose response body grew past the cap was ended. */
export class BodyOverCapError extends Error {
  constructor(maxBytes: number) {
    super(`response body over ${maxBytes} bytes`);
    this.name = 'BodyOverCapError';
  }
}

const RETRY_AFTER = 'retry-after';

/**
 * An undici dispatch handler (undici's core callback interface, which `Agent.dispatch` drives
 * directly) for one webhook POST: keeps the status and the Retry-After header, reads the body and
 * drops it, up to `maxBytes` (past it the request is aborted, and undici closes the socket rather
 * than read on), and calls `settle` exactly once. It does what `agent.request()` plus reading its
 * body did, without a Readable stream, an async iterator, an AsyncResource and a parsed headers
 * object per response, which cost ~1/3 of the client's CPU per request.
 *
 * After the status line, a failure (the body cut off, the deadline) changes nothing: the receiver
 * has answered, and the end is `answered`.
 */
export class DiscardingHandler {
  private abortRequest: Abort | undefined;
  private pendingAbort: Error | undefined;
  private status: number | undefined;
  private retryAfter: string | undefined;
  private bodyBytes = 0;
  private overCap = false;
  private settled = false;

  constructor(
    private readonly maxBytes: number,
    private readonly settle: (end: RequestEnd) => void,
  ) {}

  /**
   * Ends the request (its deadline): at once if undici has started it, else when it does (a
   * request waiting for a pooled socket is not yet abortable), as `agent.request`'s signal does.
   */
  abort(reason: Error): void {
    if (this.abortRequest) this.abortRequest(reason);
    else this.pendingAbort = reason;
  }

  onConnect(abort: Abort): void {
    if (this.pendingAbort) return abort(this.pendingAbort);
    this.abortRequest = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    if (statusCode < 200) return true; // informational (1xx): the final answer follows
    this.status = statusCode;
    for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
      const name = rawHeaders[i]!;
      if (name.length === RETRY_AFTER.length && name.toString('latin1').toLowerCase() === RETRY_AFTER) {
        this.retryAfter = rawHeaders[i + 1]!.toString('latin1');
        break;
      }
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.bodyBytes += chunk.length;
    if (this.bodyBytes > this.maxBytes && !this.overCap) {
      this.overCap = true;
      this.abortRequest?.(new BodyOverCapError(this.maxBytes));
    }
    return true;
  }

  onComplete(): void {
    this.end();
  }

  onError(error: unknown): void {
    this.end(error);
  }

  private end(error?: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.settle(
      this.status === undefined
        ? { answered: false, error }
        : {
            answered: true,
            status: this.status,
            retryAfter: this.retryAfter,
            bodyOverCap: this.overCap,
          },
    );
  }
}
