import type { Clock } from '../core/clock';

export interface DedupeWindowOptions {
  /** How long a messageId is remembered. */
  windowMs: number;
  /** Upper bound of remembered ids; the oldest are forgotten first. */
  maxEntries: number;
  clock: Clock;
}

/**
 * Remembers recently routed message ids so that a client's retry of the same event (same
 * source and messageId) is routed once. In memory and per process: after a rebalance or a
 * restart a duplicate can get through, and delivery stays at-least-once.
 */
export class DedupeWindow {
  /** Insertion-ordered: the first entry is the oldest. */
  private readonly seen = new Map<string, number>();

  constructor(private readonly options: DedupeWindowOptions) {}

  has(key: string): boolean {
    this.evict();
    return this.seen.has(key);
  }

  /**
   * Remembers the id and says whether it was new. Check and mark are one step, so two copies
   * handled at the same time cannot both pass; `release` undoes a claim whose routing failed.
   */
  claim(key: string): boolean {
    if (this.has(key)) return false;
    this.seen.set(key, this.options.clock.now());
    this.evict();
    return true;
  }

  release(key: string): void {
    this.seen.delete(key);
  }

  get size(): number {
    return this.seen.size;
  }

  private evict(): void {
    const oldestAllowed = this.options.clock.now() - this.options.windowMs;
    for (const [key, at] of this.seen) {
      if (at >= oldestAllowed && this.seen.size <= this.options.maxEntries) break;
      this.seen.delete(key);
    }
  }
}
