import type { Dispatcher } from 'undici';

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

type Controller = Pick<Dispatcher.DispatchController, 'abort'>;

/** Why a request whose response body grew past the cap was ended. */
export class BodyOverCapError extends Error {
  constructor(maxBytes: number) {
    super(`response body over ${maxBytes} bytes`);
    this.name = 'BodyOverCapError';
  }
}

/**
 * An undici dispatch handler (undici 8's handler interface, which `Pool.dispatch` drives
 * directly) for one webhook POST: keeps the status and the Retry-After header, reads the body and
 * drops it, up to `maxBytes` (past it the request is aborted, and undici closes the socket rather
 * than read on), and calls `settle` exactly once. It does what `pool.request()` plus reading its
 * body did, without a Readable stream, an async iterator and an AsyncResource per response, which
 * cost ~1/3 of the client's CPU per request.
 *
 * After the status line, a failure (the body cut off, the deadline) changes nothing: the receiver
 * has answered, and the end is `answered`.
 */
export class DiscardingHandler implements Dispatcher.DispatchHandler {
  private controller: Controller | undefined;
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
   * request waiting for a pooled socket is not yet abortable), as `pool.request`'s signal does.
   */
  abort(reason: Error): void {
    if (this.controller) this.controller.abort(reason);
    else this.pendingAbort = reason;
  }

  onRequestStart(controller: Controller): void {
    this.controller = controller;
    if (this.pendingAbort) controller.abort(this.pendingAbort);
  }

  onResponseStart(
    _controller: Controller,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (statusCode < 200) return; // informational (1xx): the final answer follows
    this.status = statusCode;
    const retryAfter = headers['retry-after']; // undici lower-cases names; repeats are an array
    this.retryAfter = Array.isArray(retryAfter) ? retryAfter[0] : retryAfter;
  }

  onResponseData(controller: Controller, chunk: Buffer): void {
    this.bodyBytes += chunk.length;
    if (this.bodyBytes > this.maxBytes && !this.overCap) {
      this.overCap = true;
      controller.abort(new BodyOverCapError(this.maxBytes));
    }
  }

  onResponseEnd(): void {
    this.end();
  }

  onResponseError(_controller: Controller, error: Error): void {
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
