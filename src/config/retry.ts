/**
 * The retry policy's settings. A failed delivery waits in a delay topic whose delay is
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

/** Checks a schedule: non-empty, positive, strictly increasing. Returns a problem or undefined. */
export function scheduleProblem(scheduleMs: readonly number[]): string | undefined {
  if (scheduleMs.length === 0) return 'the schedule needs at least one delay';
  if (scheduleMs.some((d) => !(d > 0))) return 'delays must be positive';
  if (scheduleMs.some((d, i) => i > 0 && d <= scheduleMs[i - 1]!))
    return 'delays must be strictly increasing';
  return undefined;
}
