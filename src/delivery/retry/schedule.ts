import type { RetryPolicy } from '../../config/retry';
import type { DeliveryTask } from '../../records/delivery-task';

/** The outcome of the retry policy (its schedule and defaults: config/retry.ts). */
export type RetryDecision =
  | {
      kind: 'retry';
      /** The delay topic's step: the task waits there at least this long. */
      delayMs: number;
      /** When the next attempt may start: the step's end, or later for a longer Retry-After. */
      dueAtMs: number;
      tier: number;
    }
  | { kind: 'dead-letter'; reason: 'retry_cutoff' | 'retry_after_beyond_cutoff' };

/**
 * What to do after a failed attempt.
 * @param attempts attempts made so far, including the one that just failed (≥ 1)
 * @param retryAfterMs the receiver's Retry-After: the task waits in the smallest step at least that
 *   long; a Retry-After longer than the last step is honoured exactly (the task is parked again in
 *   the delay topics until then, see `parkingStep`), unless it would pass the cutoff: then the
 *   task is dead-lettered with `retry_after_beyond_cutoff`. Never earlier than asked.
 */
export function nextRetry(options: {
  policy: RetryPolicy;
  attempts: number;
  firstAttemptAtMs: number;
  nowMs: number;
  retryAfterMs?: number;
}): RetryDecision {
  const { policy, attempts, firstAttemptAtMs, nowMs, retryAfterMs } = options;
  const steps = policy.scheduleMs;
  const cutoffAtMs = firstAttemptAtMs + policy.cutoffMs;
  if (retryAfterMs !== undefined && nowMs + retryAfterMs > cutoffAtMs) {
    return { kind: 'dead-letter', reason: 'retry_after_beyond_cutoff' };
  }
  let tier = Math.min(Math.max(attempts, 1) - 1, steps.length - 1);
  if (retryAfterMs !== undefined && retryAfterMs > steps[tier]!) {
    const atLeast = steps.findIndex((d) => d >= retryAfterMs);
    tier = atLeast === -1 ? steps.length - 1 : atLeast;
  }
  const delayMs = steps[tier]!;
  const dueAtMs = nowMs + Math.max(delayMs, retryAfterMs ?? 0);
  if (dueAtMs > cutoffAtMs) return { kind: 'dead-letter', reason: 'retry_cutoff' };
  return { kind: 'retry', delayMs, dueAtMs, tier };
}

/**
 * The delay topic step to park a task in until `dueAtMs`, without an attempt: the longest step
 * that does not pass it, or the shortest when every step does (a little late, never early).
 */
export function parkingStep(scheduleMs: readonly number[], nowMs: number, dueAtMs: number): number {
  const remainingMs = dueAtMs - nowMs;
  let step = scheduleMs[0]!;
  for (const d of scheduleMs) if (d <= remainingMs) step = d;
  return step;
}

/**
 * When a task's cutoff clock started: at its first attempt; before one, when a redrive or replay
 * wrote it anew (`reissuedAtMs`), else when Hookline received the event. So a redrive or replay
 * of an old event gets the whole retry window, while `receivedAtMs` keeps meaning receipt.
 */
export function cutoffClockStartMs(
  task: Pick<DeliveryTask, 'firstAttemptAtMs' | 'reissuedAtMs' | 'receivedAtMs'>,
): number {
  return task.firstAttemptAtMs ?? task.reissuedAtMs ?? task.receivedAtMs;
}

/** The history entry's error of a task parked while its destination is disabled. */
export const PAUSED_ERROR = 'destination_disabled';

/**
 * How often a task was parked while its destination was disabled, in its current life: since a
 * redrive or replay wrote it anew (`reissuedAtMs`), whose history keeps its earlier pauses.
 */
export function timesPaused(task: Pick<DeliveryTask, 'history' | 'reissuedAtMs'>): number {
  const sinceMs = task.reissuedAtMs ?? Number.NEGATIVE_INFINITY;
  let times = 0;
  for (const h of task.history)
    if (h.result === 'deferred' && h.error === PAUSED_ERROR && h.atMs >= sinceMs) times++;
  return times;
}

/**
 * Where a task waits while its destination is disabled: one step further along the schedule each
 * time it comes back still disabled (`pausedTimes`: how often it was parked so), so a long pause
 * costs a few records, not one every first step. Past the cutoff (counted from
 * `cutoffClockStartMs`) it is dead-lettered instead.
 */
export function pauseStep(options: {
  policy: RetryPolicy;
  pausedTimes: number;
  startedAtMs: number;
  nowMs: number;
}): { kind: 'park'; delayMs: number } | { kind: 'dead-letter'; reason: 'destination_disabled' } {
  const { policy, pausedTimes, startedAtMs, nowMs } = options;
  const steps = policy.scheduleMs;
  const delayMs = steps[Math.min(pausedTimes, steps.length - 1)]!;
  if (nowMs + delayMs > startedAtMs + policy.cutoffMs)
    return { kind: 'dead-letter', reason: 'destination_disabled' };
  return { kind: 'park', delayMs };
}
