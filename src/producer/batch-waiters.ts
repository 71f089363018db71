/** A `flush()` caller: settled once every call up to `throughSeq` is acknowledged (or failed). */
interface FlushWaiter {
  throughSeq: number;
  resolve: () => void;
  reject: (err: Error) => void;
}

/** The `flush()` callers waiting on the batcher, by the last call each waits for. */
export class FlushWaiters {
  private waiters: FlushWaiter[] = [];

  get count(): number {
    return this.waiters.length;
  }

  /** Resolves once every call up to `throughSeq` is acknowledged; rejects with a failure before. */
  wait(throughSeq: number): Promise<void> {
    return new Promise<void>((resolve, reject) => this.waiters.push({ throughSeq, resolve, reject }));
  }

  /** Calls up to `lastSeq` are acknowledged: those waiting for no later call resolve. */
  acknowledged(lastSeq: number): void {
    this.settle(
      (w) => w.throughSeq <= lastSeq,
      (w) => w.resolve(),
    );
  }

  /** The batch starting at `firstSeq` failed (or went unanswered): who waits for it rejects. */
  failed(firstSeq: number, err: Error): void {
    this.settle(
      (w) => w.throughSeq >= firstSeq,
      (w) => w.reject(err),
    );
  }

  rejectAll(err: Error): void {
    for (const w of this.waiters.splice(0)) w.reject(err);
  }

  private settle(matches: (w: FlushWaiter) => boolean, settle: (w: FlushWaiter) => void): void {
    const remaining: FlushWaiter[] = [];
    for (const w of this.waiters) {
      if (matches(w)) settle(w);
      else remaining.push(w);
    }
    this.waiters = remaining;
  }
}

/**
 * `waitForRoom()` callers. Woken in the next turn of the event loop, after the batch that freed
 * the room was acknowledged or dropped and the next one was handed to `send`: the transport writes
 * that batch before the callers fill the queue again, so their work overlaps the round trip
 * instead of adding to it.
 */
export class RoomWaiters {
  private waiters: (() => void)[] = [];
  private wakeScheduled = false;

  constructor(private readonly hasRoom: () => boolean) {}

  wait(): Promise<void> {
    if (this.hasRoom()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Wakes every waiter in the next turn, if there is room then. */
  wake(): void {
    if (this.waiters.length === 0 || this.wakeScheduled) return;
    this.wakeScheduled = true;
    setImmediate(() => {
      this.wakeScheduled = false;
      if (this.hasRoom()) for (const resolve of this.waiters.splice(0)) resolve();
    });
  }
}
