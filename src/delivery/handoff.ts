import type { RetryPolicy } from '../config/retry';
import { formatDelay } from '../kafka/topics';
import type { AttemptEntry } from '../records/delivery-attempt';
import type { AttemptSummary, DeliveryTask } from '../records/delivery-task';
import type { DeliveryOutcome, UrlAttempt } from './failover';
import { nextRetry } from './retry/schedule';

/** Where a task goes after an attempt. */
export type Handoff =
  | { outcome: 'delivered' }
  | { outcome: 'retry_scheduled'; tierDelayMs: number; dueAtMs: number }
  | { outcome: 'dead_lettered'; reason: string };

/** What the executor writes after an attempt: the attempted task, where it goes, and its attempt record. */
export interface HandoffPlan {
  /** The task with this attempt counted and added to its history. */
  task: DeliveryTask;
  handoff: Handoff;
  attempt: AttemptEntry;
}

/**
 * The delivery policy, pure: given a task, the outcome of trying its URLs, the retry policy and
 * the time, decides where the task goes next (delivered / a delay topic at a due time / the
 * dead-letter topic with a reason) and what the attempt log records.
 *  - Some URL answered 2xx: delivered.
 *  - Every URL failed and none retriably (other 4xx, 3xx, TLS; or none left): dead-lettered with
 *    what made the last URL fail (`http_404`, `tls`, ...), or `all_urls_disabled`.
 *  - Otherwise (URLs skipped for an open circuit included): retried at the schedule's next step
 *    (Retry-After honoured), unless that would pass the cutoff counted from the first attempt:
 *    dead-lettered with `retry_cutoff`, or `circuit_open` when every URL was skipped.
 */
export function planHandoff(options: {
  task: DeliveryTask;
  outcome: DeliveryOutcome;
  policy: RetryPolicy;
  /** When the attempt started, and now (it ended). */
  startedAtMs: number;
  nowMs: number;
}): HandoffPlan {
  const { outcome, policy, startedAtMs, nowMs } = options;
  const task = recordAttempt(options.task, outcome, startedAtMs, nowMs - startedAtMs);
  const handoff = decide(task, outcome, policy, nowMs);
  return { task, handoff, attempt: attemptEntry(task, handoff, outcome.attempts, startedAtMs) };
}

function decide(task: DeliveryTask, outcome: DeliveryOutcome, policy: RetryPolicy, nowMs: number): Handoff {
  if (outcome.kind === 'delivered') return { outcome: 'delivered' };
  if (!outcome.retriable) return { outcome: 'dead_lettered', reason: nonRetriableReason(outcome.attempts) };
  const decision = nextRetry({
    policy,
    attempts: task.attempts,
    firstAttemptAtMs: task.firstAttemptAtMs!,
    nowMs,
    retryAfterMs: outcome.retryAfterMs,
  });
  if (decision.kind === 'dead-letter') {
    // At the cutoff, a task whose URLs were all skipped for open circuits says so.
    const skipped = outcome.attempts.length > 0 && outcome.attempts.every((a) => a.result === 'circuit_open');
    return { outcome: 'dead_lettered', reason: skipped ? 'circuit_open' : decision.reason };
  }
  return { outcome: 'retry_scheduled', tierDelayMs: decision.delayMs, dueAtMs: decision.dueAtMs };
}

/** The task after one more attempt: counters, first-attempt time and history updated. */
export function recordAttempt(
  task: DeliveryTask,
  outcome: DeliveryOutcome,
  atMs: number,
  durationMs: number,
): DeliveryTask {
  const last = outcome.attempts[outcome.attempts.length - 1];
  const summary: AttemptSummary = {
    atMs,
    durationMs: Math.round(durationMs),
    urlIndex: last?.urlIndex ?? 0,
    ...(last?.status !== undefined && { status: last.status }),
    result: outcome.kind === 'delivered' ? 'success' : (last?.result ?? 'connection'),
    ...(last?.error !== undefined && { error: last.error }),
  };
  // `firstAttemptAtMs` leads the literal so that the spread never adds a property to its copy:
  // `{ ...task, firstAttemptAtMs }` on a task without one took ~1.4 µs in V8, this ~0.2 µs.
  const next: DeliveryTask = {
    firstAttemptAtMs: atMs,
    ...task,
    attempts: task.attempts + 1,
    history: [...task.history, summary],
  };
  next.firstAttemptAtMs = task.firstAttemptAtMs ?? atMs;
  return next;
}

/** e.g. `http_410`, `tls`: what made every URL fail for good. */
function nonRetriableReason(attempts: UrlAttempt[]): string {
  const last = attempts[attempts.length - 1];
  if (!last) return 'all_urls_disabled';
  return last.status !== undefined ? `http_${last.status}` : last.result;
}

function attemptEntry(task: DeliveryTask, handoff: Handoff, urls: UrlAttempt[], atMs: number): AttemptEntry {
  const last = task.history[task.history.length - 1]!;
  const detail =
    handoff.outcome === 'dead_lettered'
      ? handoff.reason
      : handoff.outcome === 'retry_scheduled'
        ? formatDelay(handoff.tierDelayMs)
        : undefined;
  return {
    taskId: task.taskId,
    destinationId: task.destinationId,
    sourceId: task.sourceId,
    messageId: task.messageId,
    eventType: task.eventType,
    attempt: task.attempts,
    atMs,
    durationMs: last.durationMs,
    outcome: handoff.outcome,
    ...(detail !== undefined && { detail }),
    ...(handoff.outcome === 'retry_scheduled' && { dueAtMs: handoff.dueAtMs }),
    urls: urls.map((u) => ({
      urlIndex: u.urlIndex,
      result: u.result,
      ...(u.status !== undefined && { status: u.status }),
      durationMs: Math.round(u.durationMs),
      ...(u.error !== undefined && { error: u.error }),
    })),
  };
}
