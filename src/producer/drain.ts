import type { Clock } from '../core/clock';
import type { Scheduler } from './scheduler';

/** What `drain` needs of the queue: the Batcher, seen through the client's pipeline. */
export interface Drainable {
  /** Calls held: queued, or in a batch not yet answered. */
  readonly size: number;
  /** Calls in the batch in flight (0: none). */
  readonly inFlight: number;
  /** Sends everything queued; rejects with the first batch that fails (or goes unanswered). */
  flush(): Promise<void>;
  /** Resolves once no batch is in flight. */
  idle(): Promise<void>;
}

export interface DrainOptions {
  clock: Clock;
  scheduler: Scheduler;
  /** Longest the whole drain may take. */
  timeoutMs: number;
  /** Pause before a batch that failed retriably (and went back to the queue) is sent again. */
  retryDelayMs: number;
}

export interface DrainOutcome {
  /** The deadline passed with calls still held. */
  timedOut: boolean;
  /** The first failure on the way, if any (later batches may still have been delivered). */
  cause: Error | undefined;
}

/**
 * `close()`'s attempt to deliver everything queued, bounded by `timeoutMs`: a batch that fails
 * for good has been dropped by the batcher, so the next flush goes on with the batches behind it;
 * a batch that failed retriably is back at the head of the queue and is sent again after
 * `retryDelayMs`; a batch still in flight (one unanswered past its ack timeout too) is waited
 * for, never sent again. It ends when nothing is held, or at the
 * deadline.
 */
export async function drain(queue: Drainable, options: DrainOptions): Promise<DrainOutcome> {
  const { clock, scheduler } = options;
  const deadlineMs = clock.now() + options.timeoutMs;
  let cause: Error | undefined;
  while (queue.size > 0) {
    const leftMs = deadlineMs - clock.now();
    if (leftMs <= 0) return { timedOut: true, cause };
    const result = await within(queue.flush(), leftMs, scheduler);
    if (result === 'timeout') return { timedOut: true, cause };
    if (result === 'ok') continue;
    cause ??= result.err;
    if (queue.inFlight > 0) {
      // Unanswered past its ack timeout (or the next batch, after one was dropped): wait for it.
      if ((await within(queue.idle(), deadlineMs - clock.now(), scheduler)) === 'timeout')
        return { timedOut: true, cause };
    } else if (queue.size > 0) {
      // Put back at the head (retriable): pause, then send it again.
      const pauseMs = Math.min(options.retryDelayMs, deadlineMs - clock.now());
      await new Promise<void>((resolve) => scheduler.setTimeout(resolve, pauseMs));
    }
  }
  return { timedOut: false, cause };
}

/** How `promise` settled within `timeoutMs` (it is left running, its rejection handled). */
function within(
  promise: Promise<void>,
  timeoutMs: number,
  scheduler: Scheduler,
): Promise<'ok' | 'timeout' | { err: Error }> {
  return new Promise((resolve) => {
    const cancel = scheduler.setTimeout(() => resolve('timeout'), timeoutMs);
    promise.then(
      () => {
        cancel();
        resolve('ok');
      },
      (err: unknown) => {
        cancel();
        resolve({ err: err instanceof Error ? err : new Error(String(err)) });
      },
    );
  });
}
