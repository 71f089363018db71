import type { SharedCircuit } from '../../records/circuit';

/**
 * The circuit breaker of one destination URL, as a pure state machine (times are passed in).
 *
 *   closed ──(≥ minRequests in the window and ≥ failureRatio of them failed)──▶ open
 *   open ──(cool-down over)──▶ half_open: up to `probes` requests may go through
 *   half_open ──(a probe succeeds)──▶ closed      half_open ──(a probe fails)──▶ open, longer cool-down
 *
 * A failure is what says the endpoint is down: a timeout, a refused or dropped connection, a 5xx.
 * Any other answer (2xx, 3xx, 4xx) shows it is up. The cool-down doubles with each trip in a row,
 * from `cooldownMs` up to `maxCooldownMs`, and resets once the circuit closes.
 *
 * `adopt` applies a state another process published (see registry.ts): an open circuit there is
 * open here until the same end of cool-down; a close there (a probe succeeded) closes it here.
 */
export type CircuitState = 'closed' | 'open' | 'half_open';

export interface BreakerPolicy {
  /** The window outcomes are counted over, in 1 s buckets. */
  windowMs: number;
  /** Fewer requests than this in the window never open the circuit. */
  minRequests: number;
  /** Share of failed requests in the window that opens it, 0–1. */
  failureRatio: number;
  cooldownMs: number;
  maxCooldownMs: number;
  /** Requests let through at once while half-open. */
  probes: number;
}

/** 10 requests in 30 s, half of them failed: open for 30 s, then 1 min, 2 min, ... up to 10 min. */
export const DEFAULT_BREAKER_POLICY: BreakerPolicy = {
  windowMs: 30_000,
  minRequests: 10,
  failureRatio: 0.5,
  cooldownMs: 30_000,
  maxCooldownMs: 600_000,
  probes: 3,
};

export interface Transition {
  from: CircuitState;
  to: CircuitState;
}

const BUCKET_MS = 1_000;

export class CircuitBreaker {
  private current: CircuitState = 'closed';
  /** When the current state began. */
  private sinceMs: number;
  private trips = 0;
  private openUntilMs = 0;
  private failingSinceMs: number | undefined;
  private probesInFlight = 0;
  /** Per-second counts of the window, oldest first. */
  private buckets: { atMs: number; requests: number; failures: number }[] = [];
  private lastErrorText: string | undefined;

  constructor(
    private readonly policy: BreakerPolicy,
    nowMs: number,
  ) {
    this.sinceMs = nowMs;
  }

  state(nowMs: number): CircuitState {
    this.advance(nowMs);
    return this.current;
  }

  /** The state, since when, and the last failure seen (for the admin API). */
  view(nowMs: number): { state: CircuitState; sinceMs: number; lastError?: string } {
    this.advance(nowMs);
    return {
      state: this.current,
      sinceMs: this.sinceMs,
      ...(this.lastErrorText && { lastError: this.lastErrorText }),
    };
  }

  /**
   * May a request go to this URL now? While half-open, a yes reserves one of the probes: the
   * caller must `record` its outcome (or `release` it when it was not sent).
   */
  allow(nowMs: number): boolean {
    this.advance(nowMs);
    if (this.current === 'closed') return true;
    if (this.current === 'open') return false;
    if (this.probesInFlight >= this.policy.probes) return false;
    this.probesInFlight++;
    return true;
  }

  /** Gives back a probe that was reserved but not used. */
  release(): void {
    if (this.probesInFlight > 0) this.probesInFlight--;
  }

  /** The outcome of a request `allow` let through; returns the transition it caused, if any. */
  record(failed: boolean, nowMs: number, error?: string): Transition | undefined {
    this.advance(nowMs);
    if (failed && error) this.lastErrorText = error;
    if (this.current === 'half_open') {
      this.release();
      return failed ? this.trip(nowMs) : this.close(nowMs);
    }
    if (this.current === 'open') return undefined; // an answer to a request sent before it opened
    this.count(failed, nowMs);
    const { requests, failures } = this.totals();
    if (failed && requests >= this.policy.minRequests && failures / requests >= this.policy.failureRatio) {
      return this.trip(nowMs);
    }
    return undefined;
  }

  /** The state to publish: the open or closed state this breaker is in (half-open: undefined). */
  shared(): SharedCircuit | undefined {
    if (this.current === 'half_open') return undefined;
    if (this.current === 'closed') return { state: 'closed', sinceMs: this.sinceMs, trips: 0 };
    return {
      state: 'open',
      sinceMs: this.sinceMs,
      openUntilMs: this.openUntilMs,
      trips: this.trips,
      ...(this.failingSinceMs !== undefined && { failingSinceMs: this.failingSinceMs }),
      ...(this.lastErrorText && { lastError: this.lastErrorText }),
    };
  }

  /**
   * Takes on a state another process published; returns the transition it caused, if any. An
   * open whose cool-down is over arrives as half-open (probing), like one of our own.
   */
  adopt(remote: SharedCircuit, nowMs: number): Transition | undefined {
    this.advance(nowMs);
    const from = this.current;
    if (remote.state === 'closed') {
      if (from === 'closed') return undefined;
      return this.close(nowMs);
    }
    if (from === 'open' && this.openUntilMs >= (remote.openUntilMs ?? 0)) return undefined;
    if (from === 'half_open' && (remote.openUntilMs ?? 0) <= nowMs) return undefined;
    this.current = 'open';
    this.sinceMs = remote.sinceMs;
    this.openUntilMs = remote.openUntilMs ?? nowMs;
    this.trips = Math.max(this.trips, remote.trips);
    this.failingSinceMs = Math.min(this.failingSinceMs ?? Infinity, remote.failingSinceMs ?? remote.sinceMs);
    if (remote.lastError) this.lastErrorText = remote.lastError;
    this.buckets = [];
    this.probesInFlight = 0;
    this.advance(nowMs);
    return this.current === from ? undefined : { from, to: this.current };
  }

  /** When it first opened since it was last closed; undefined while closed. */
  get failingSince(): number | undefined {
    return this.current === 'closed' ? undefined : this.failingSinceMs;
  }

  private advance(nowMs: number): void {
    if (this.current === 'open' && nowMs >= this.openUntilMs) {
      this.current = 'half_open';
      this.sinceMs = this.openUntilMs;
      this.probesInFlight = 0;
    }
  }

  private cooldownMs(): number {
    return Math.min(this.policy.maxCooldownMs, this.policy.cooldownMs * 2 ** Math.max(0, this.trips - 1));
  }

  private trip(nowMs: number): Transition {
    const from = this.current;
    this.current = 'open';
    this.sinceMs = nowMs;
    this.trips++;
    this.openUntilMs = nowMs + this.cooldownMs();
    this.failingSinceMs ??= nowMs;
    this.buckets = [];
    return { from, to: 'open' };
  }

  private close(nowMs: number): Transition {
    const from = this.current;
    this.current = 'closed';
    this.sinceMs = nowMs;
    this.trips = 0;
    this.failingSinceMs = undefined;
    this.buckets = [];
    this.lastErrorText = undefined;
    return { from, to: 'closed' };
  }

  private count(failed: boolean, nowMs: number): void {
    const atMs = nowMs - (nowMs % BUCKET_MS);
    while (this.buckets.length > 0 && this.buckets[0]!.atMs <= nowMs - this.policy.windowMs)
      this.buckets.shift();
    let last = this.buckets[this.buckets.length - 1];
    if (!last || last.atMs !== atMs) this.buckets.push((last = { atMs, requests: 0, failures: 0 }));
    last.requests++;
    if (failed) last.failures++;
  }

  private totals(): { requests: number; failures: number } {
    let requests = 0;
    let failures = 0;
    for (const b of this.buckets) {
      requests += b.requests;
      failures += b.failures;
    }
    return { requests, failures };
  }
}
