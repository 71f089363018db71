/**
 * A token bucket: `ratePerSecond` tokens a second, at most `capacity` saved up. Pure: times are
 * passed in. The dispatcher takes one token per task it starts for a rate-limited destination:
 * a task's failover to the destination's later URLs (failover.ts) takes none.
 */
export class TokenBucket {
  private tokens: number;
  private atMs: number;

  constructor(
    readonly ratePerSecond: number,
    readonly capacity: number,
    nowMs: number,
  ) {
    this.tokens = capacity;
    this.atMs = nowMs;
  }

  /** Takes a token if there is one. */
  take(nowMs: number): boolean {
    this.refill(nowMs);
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  ready(nowMs: number): boolean {
    this.refill(nowMs);
    return this.tokens >= 1;
  }

  /** When the next token will be there (now if there is one). */
  nextTokenAtMs(nowMs: number): number {
    this.refill(nowMs);
    if (this.tokens >= 1) return nowMs;
    return nowMs + Math.ceil(((1 - this.tokens) * 1_000) / this.ratePerSecond);
  }

  private refill(nowMs: number): void {
    if (nowMs <= this.atMs) return;
    this.tokens = Math.min(this.capacity, this.tokens + ((nowMs - this.atMs) * this.ratePerSecond) / 1_000);
    this.atMs = nowMs;
  }
}

/**
 * The burst a rate limit allows: a tenth of a second's worth (at least one request). Any window of
 * one second then sees at most the limit plus that burst.
 */
export function burstFor(ratePerSecond: number): number {
  return Math.max(1, Math.ceil(ratePerSecond / 10));
}
