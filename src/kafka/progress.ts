import { ReadLagError } from '../core/errors';

/** A partition's watermarks as `admin.fetchTopicOffsets` reports them. */
export interface PartitionWatermarks {
  partition: number;
  low: string;
  high: string;
}

interface Waiter {
  partition: number;
  offset: bigint;
  resolve(): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * How far the materialiser has read, per partition: the last offset it processed (applied or
 * skipped). Answers "caught up with the topic as it stood at start?" and lets a writer wait until
 * the offset its record got has been applied locally (read-your-writes).
 */
export class ReadProgress {
  private readonly processed = new Map<number, bigint>();
  /** Last offset to reach per partition for catch-up; undefined until the watermarks are known. */
  private targets: Map<number, bigint> | undefined;
  private readonly waiters = new Set<Waiter>();
  private readonly caughtUpCallbacks: (() => void)[] = [];
  private closedWith: Error | undefined;
  private readonly lagError: (message: string) => Error;

  /** @param lagError the error a wait rejects with (a timeout, or the reader stopped) */
  constructor(options: { lagError?: (message: string) => Error } = {}) {
    this.lagError = options.lagError ?? ((message) => new ReadLagError(message));
  }

  /** The watermarks observed at start. A partition with nothing to read (high <= low) needs nothing. */
  expect(watermarks: PartitionWatermarks[]): void {
    this.targets = new Map();
    for (const w of watermarks) {
      const high = BigInt(w.high);
      if (high > BigInt(w.low)) this.targets.set(w.partition, high - 1n);
    }
    this.checkCaughtUp();
  }

  /** True when the record at this offset has not been processed yet (a replay after a rejoin skips it). */
  isNew(partition: number, offset: string): boolean {
    const last = this.processed.get(partition);
    return last === undefined || BigInt(offset) > last;
  }

  /** Records that everything up to and including `offset` has been processed. Never moves back. */
  advance(partition: number, offset: string): void {
    const value = BigInt(offset);
    const last = this.processed.get(partition);
    if (last !== undefined && value <= last) return;
    this.processed.set(partition, value);
    for (const waiter of this.waiters) {
      if (waiter.partition === partition && waiter.offset <= value) this.settle(waiter);
    }
    this.checkCaughtUp();
  }

  get caughtUp(): boolean {
    if (!this.targets) return false;
    for (const [partition, target] of this.targets) {
      const last = this.processed.get(partition);
      if (last === undefined || last < target) return false;
    }
    return true;
  }

  /** Calls back once, when caught up (at once if already). */
  onCaughtUp(callback: () => void): void {
    if (this.caughtUp) callback();
    else this.caughtUpCallbacks.push(callback);
  }

  /** Resolves once the record at `offset` has been processed; rejects with the lag error after `timeoutMs`. */
  waitFor(partition: number, offset: string, timeoutMs: number): Promise<void> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    const target = BigInt(offset);
    const last = this.processed.get(partition);
    if (last !== undefined && last >= target) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        partition,
        offset: target,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.waiters.delete(waiter);
          reject(
            this.lagError(`offset ${offset} of partition ${partition} not applied within ${timeoutMs} ms`),
          );
        }, timeoutMs),
      };
      this.waiters.add(waiter);
    });
  }

  /** Rejects every pending and future wait (the materialiser stopped). */
  close(): void {
    this.closedWith = this.lagError('the reader stopped');
    for (const waiter of this.waiters) this.settle(waiter, this.closedWith);
  }

  private settle(waiter: Waiter, err?: Error): void {
    clearTimeout(waiter.timer);
    this.waiters.delete(waiter);
    if (err) waiter.reject(err);
    else waiter.resolve();
  }

  private checkCaughtUp(): void {
    if (this.caughtUpCallbacks.length === 0 || !this.caughtUp) return;
    for (const callback of this.caughtUpCallbacks.splice(0)) callback();
  }
}
