import type { Clock } from '../../../src/core/clock';
import type { Scheduler } from '../../../src/producer/scheduler';

interface Timer {
  atMs: number;
  seq: number;
  callback: () => void;
}

/**
 * A clock and scheduler in one whose time moves only when the test says so: `advance(ms)` fires
 * the timers that fall due, in order. No sleeps, no fake global timers.
 */
export class ManualTime implements Clock, Scheduler {
  private nowMs: number;
  private timers: Timer[] = [];
  private seq = 0;

  constructor(startIso = '2024-05-01T12:00:00.000Z') {
    this.nowMs = Date.parse(startIso);
  }

  now(): number {
    return this.nowMs;
  }

  setTimeout(callback: () => void, delayMs: number): () => void {
    const timer = { atMs: this.nowMs + Math.max(0, delayMs), seq: this.seq++, callback };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  /** Moves time forward by `ms`, firing every timer due on the way at its own time. */
  advance(ms: number): void {
    const targetMs = this.nowMs + ms;
    for (;;) {
      const due = this.timers
        .filter((t) => t.atMs <= targetMs)
        .sort((a, b) => a.atMs - b.atMs || a.seq - b.seq)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.nowMs = due.atMs;
      due.callback();
    }
    this.nowMs = targetMs;
  }

  /** Timers armed and not yet fired or cancelled. */
  get pendingTimers(): number {
    return this.timers.length;
  }

  /** When the next timer fires, or undefined. */
  get nextTimerAtMs(): number | undefined {
    return this.timers.length === 0 ? undefined : Math.min(...this.timers.map((t) => t.atMs));
  }
}

/** Lets pending promise callbacks run (an acknowledged batch, the next send). */
export const settle = () => new Promise((resolve) => setImmediate(resolve));
