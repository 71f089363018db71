import { sleep } from '../core/backoff';

/** The messages a consumer is handling, bounded: waiting for room under the bound, or for none. */
export class InFlight {
  private count = 0;
  private readonly roomWaiters: (() => void)[] = [];
  private readonly drainWaiters: (() => void)[] = [];

  constructor(private readonly max: number) {}

  get size(): number {
    return this.count;
  }

  get full(): boolean {
    return this.count >= this.max;
  }

  /** Resolves when one message is done, or after `timeoutMs`, or on `wakeAll`: check `full` again. */
  room(timeoutMs: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      // A waiter that timed out leaves the queue: else `done` would wake it instead of a live one.
      const timer = setTimeout(() => {
        const i = this.roomWaiters.indexOf(wake);
        if (i >= 0) this.roomWaiters.splice(i, 1);
        resolve();
      }, timeoutMs);
      timer.unref();
      this.roomWaiters.push(wake);
    });
  }

  add(): void {
    this.count++;
  }

  done(): void {
    this.count--;
    this.roomWaiters.shift()?.();
    if (this.count === 0) for (const w of this.drainWaiters.splice(0)) w();
  }

  /** Wakes every `room` waiter (a stop: they give up). */
  wakeAll(): void {
    for (const w of this.roomWaiters.splice(0)) w();
  }

  /** Resolves once nothing is in flight, or after `timeoutMs`. */
  drained(timeoutMs: number): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return Promise.race([new Promise<void>((r) => this.drainWaiters.push(r)), sleep(timeoutMs)]);
  }
}
