import type { RetryPolicy } from '../../config/retry';

/** The outcome of the retry policy (its schedule and defaults: config/retry.ts). */
export type RetryDecision =
  | { kind: 'retry'; delayMs: number; dueAtMs: number; tier: number }
  | { kind: 'dead-letter'; reason: 'retry_cutoff' };

/**
 * What to do after a failed attempt.
 * @param attempts attempts made so far, including the one that just failed (≥ 1)
 * @param retryAfterMs the receiver's Retry-After, honoured by waiting in the smallest tier at
 *   least that long (never earlier), clamped to the last tier
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
  let tier = Math.min(Math.max(attempts, 1) - 1, steps.length - 1);
  if (retryAfterMs !== undefined && retryAfterMs > steps[tier]!) {
    const atLeast = steps.findIndex((d) => d >= retryAfterMs);
    tier = atLeast === -1 ? steps.length - 1 : atLeast;
  }
  const delayMs = steps[tier]!;
  const dueAtMs = nowMs + delayMs;
  if (dueAtMs > firstAttemptAtMs + policy.cutoffMs) return { kind: 'dead-letter', reason: 'retry_cutoff' };
  return { kind: 'retry', delayMs, dueAtMs, tier };
}
