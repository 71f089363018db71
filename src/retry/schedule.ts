/**
 * The retry policy, as pure functions. A failed delivery waits in a delay topic whose delay is
 * one of the schedule's steps, and is tried again once due, until the next due time would pass
 * `firstAttemptAt + cutoff`; then it is dead-lettered.
 *
 * Default schedule (HOOKLINE_RETRY_SCHEDULE): 10s, 1m, 5m, 20m, 1h, then hourly until the
 * default cutoff (HOOKLINE_RETRY_CUTOFF) of 4h after the first attempt:
 *   attempt 2 at ≈ +10s, 3 at ≈ +1m10s, 4 at ≈ +6m10s, 5 at ≈ +26m10s, 6 at ≈ +1h26m,
 *   7 at ≈ +2h26m, 8 at ≈ +3h26m; attempt 9 would be ≈ +4h26m > 4h → dead-letter.
 */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [10_000, 60_000, 300_000, 1_200_000, 3_600_000];
export const DEFAULT_RETRY_CUTOFF_MS = 4 * 3_600_000;

export interface RetryPolicy {
  /** Strictly increasing delays; the last one repeats. Each step is one delay topic. */
  scheduleMs: readonly number[];
  cutoffMs: number;
}

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

/** `10s`, `1m`, `1h30m`, `250ms`: a delay in topic-name form. */
export function formatDelay(ms: number): string {
  const units: [string, number][] = [
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1_000],
    ['ms', 1],
  ];
  let rest = ms;
  let out = '';
  for (const [unit, size] of units) {
    if (rest >= size) {
      out += `${Math.floor(rest / size)}${unit}`;
      rest %= size;
    }
  }
  return out || '0ms';
}

/** The delay topic of one tier: `<prefix>.retry.<delay>`, e.g. `hookline.retry.10s`. */
export function retryTopic(prefix: string, delayMs: number): string {
  return `${prefix}.retry.${formatDelay(delayMs)}`;
}

/** Checks a schedule: non-empty, positive, strictly increasing. Returns a problem or undefined. */
export function scheduleProblem(scheduleMs: readonly number[]): string | undefined {
  if (scheduleMs.length === 0) return 'the schedule needs at least one delay';
  if (scheduleMs.some((d) => !(d > 0))) return 'delays must be positive';
  if (scheduleMs.some((d, i) => i > 0 && d <= scheduleMs[i - 1]!))
    return 'delays must be strictly increasing';
  return undefined;
}
