/** How one URL of a failed attempt failed, as far as when to try it again goes. */
export interface UrlFailure {
  /** Whether a later attempt can succeed at this URL (a 404 or a TLS failure cannot). */
  retriable: boolean;
  /** The Retry-After it answered (429/503), in ms; undefined when it sent none or did not answer. */
  retryAfterMs?: number;
}

/**
 * The Retry-After a failed task owes, from its URLs' failures: the next attempt comes when the
 * earliest URL is ready, since any one of them succeeding delivers the event.
 *  - A URL that failed retriably without a Retry-After (a plain 5xx, a timeout, an open circuit, a
 *    request not sent) is ready at the schedule's next step: undefined, the schedule applies.
 *  - Otherwise the shortest Retry-After among the retriable failures: a URL asking for 3 h does not
 *    hold back one asking for 1 min, and only if even the shortest passes the cutoff is the task
 *    dead-lettered (`retry_after_beyond_cutoff`).
 *  - URLs that failed for good are ignored: no later attempt will succeed there.
 */
export function earliestRetryAfterMs(failures: readonly UrlFailure[]): number | undefined {
  let earliestMs: number | undefined;
  for (const f of failures) {
    if (!f.retriable) continue;
    if (f.retryAfterMs === undefined) return undefined;
    earliestMs = Math.min(earliestMs ?? Infinity, f.retryAfterMs);
  }
  return earliestMs;
}
