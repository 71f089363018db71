import { backoffDelayMs, sleepHoldingProcess } from '../core/backoff';
import { systemClock, type Clock } from '../core/clock';
import { errorMessage } from '../core/errors';
import { isPermanentStartError, isTransientStartError, type BrokerOutageWatch } from '../kafka/outage';
import type { Logger } from '../observability/logger';

/** After the first failed start, how long start-up keeps trying: the wait connecting allows too (client.ts). */
export const START_OUTAGE_BUDGET_MS = 60_000;
/** Waits between attempts: 1 s doubling to 5 s. */
const BETWEEN_ATTEMPTS = { initialDelayMs: 1_000, maxDelayMs: 5_000 };

export interface StartThroughOutageOptions<T> {
  /** One whole start-up; it undoes what it started before it rejects (compose/). */
  start: () => Promise<T>;
  /** When the brokers were last seen going away (kafka/outage.ts). */
  outage: Pick<BrokerOutageWatch, 'seenSince'>;
  /** True once the process is asked to stop: no further attempt. */
  stopping: () => boolean;
  logger: Logger;
  budgetMs?: number;
  clock?: Clock;
  /** Aborted when the process is asked to stop: the wait between attempts ends at once. */
  signal?: AbortSignal;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/**
 * Runs start-up, and runs it again when it failed because the brokers went away meanwhile (a kill -9
 * or a restart of the broker while this process was starting): any step may fail then (reading a
 * topic's offsets, joining a group, a kafkajs client that crashed mid-request), so start-up as a
 * whole waits the outage out, up to `budgetMs` after its first failure, instead of the process
 * exiting with the partitions it had already joined for. A failure that no wait cures (bad
 * credentials, invalid configuration), or one with no broker trouble seen during its attempt,
 * is thrown at once.
 */
export async function startThroughOutage<T>(options: StartThroughOutageOptions<T>): Promise<T> {
  const clock = options.clock ?? systemClock;
  // Held: the failed attempt closed every connection, server and timer it had made, so an
  // unreferenced timer would leave the process nothing to wait for, and it would exit with 0.
  const sleep = options.sleep ?? sleepHoldingProcess;
  const budgetMs = options.budgetMs ?? START_OUTAGE_BUDGET_MS;
  let firstFailureMs: number | undefined;
  for (let attempt = 1; ; attempt++) {
    const attemptMs = clock.now();
    try {
      return await options.start();
    } catch (err) {
      firstFailureMs ??= clock.now();
      const outage = isTransientStartError(err) || options.outage.seenSince(attemptMs);
      const waitMs = backoffDelayMs(attempt, BETWEEN_ATTEMPTS);
      const late = clock.now() + waitMs - firstFailureMs > budgetMs;
      if (!outage || isPermanentStartError(err) || late || options.stopping()) throw err;
      options.logger.warn(
        { err: errorMessage(err), attempt, retryInMs: waitMs },
        'start-up failed while Kafka was unreachable; starting again',
      );
      await sleep(waitMs, options.signal);
      if (options.stopping()) throw err;
    }
  }
}
