import type { Consumer } from 'kafkajs';
import { backoffDelayMs, type BackoffPolicy } from '../core/backoff';
import { errorMessage } from '../core/errors';
import type { Logger } from '../observability/logger';

/** Waits before restarting a consumer kafkajs left stopped after a crash: 1 s, doubling to 30 s. */
export const CRASH_RESTART_BACKOFF: BackoffPolicy = { initialDelayMs: 1_000, maxDelayMs: 30_000 };

export interface CrashRestartOptions {
  consumer: Consumer;
  /** True once the consumer's owner began to stop: no restart then. */
  stopping(): boolean;
  /**
   * Runs the consumer again once it is connected: its `run(...)`, and whatever must follow a run
   * (pauses, seeks). A rejection is retried after a longer wait.
   */
  run(): Promise<void>;
  /** Logged with each crash and restart (e.g. `{ groupId }`). */
  context: Record<string, unknown>;
  logger: Logger;
  backoff?: BackoffPolicy;
}

export interface CrashRestart {
  /** Crashes kafkajs did not restart from, so far. */
  readonly crashes: number;
  /** No restart from now on (a restart waiting its turn is dropped): the owner stops. */
  cancel(): void;
}

/**
 * kafkajs restarts a crashed consumer only after an error it counts as retriable. Any other (a
 * TypeError or RangeError from inside kafkajs, or a KafkaJSNonRetriableError) leaves it stopped
 * for good: a process that goes on serving but no longer consumes, and, in a group, whose
 * partitions given up at the last join are never released. This connects and runs the consumer
 * again, after CRASH_RESTART_BACKOFF (longer after each failed restart), unless its owner stops.
 */
export function restartAfterCrashes(options: CrashRestartOptions): CrashRestart {
  const { consumer, logger, context } = options;
  const backoff = options.backoff ?? CRASH_RESTART_BACKOFF;
  const timers = new Set<NodeJS.Timeout>();
  let cancelled = false;
  let crashes = 0;
  const stopped = () => cancelled || options.stopping();

  const schedule = (err: unknown, failures: number) => {
    const delayMs = backoffDelayMs(failures + 1, backoff);
    // A crash is a bug somewhere: the stack of what kafkajs wrapped says where.
    const stack = rootCause(err)?.stack;
    logger.error(
      { ...context, err: errorMessage(err), stack, restartInMs: delayMs },
      'consumer crashed; restarting it',
    );
    const timer = setTimeout(() => {
      timers.delete(timer);
      void restart(failures);
    }, delayMs);
    timer.unref(); // a process is kept open by what it serves, not by a consumer it may restart
    timers.add(timer);
  };

  const restart = async (failures: number) => {
    if (stopped()) return;
    try {
      await consumer.connect();
      // A stop meanwhile disconnected before this connect ended: disconnect again. Checked right
      // before run(), which starts synchronously enough for a later stop to see it (runner-stop.ts).
      if (stopped()) return void (await consumer.disconnect().catch(() => undefined));
      await options.run();
      logger.info(context, 'consumer restarted after a crash');
    } catch (err) {
      if (!stopped()) schedule(err, failures + 1);
    }
  };

  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (payload.restart || stopped()) return; // kafkajs restarts it, or no one wants it any more
    crashes++;
    schedule(payload.error, 0);
  });

  return {
    get crashes() {
      return crashes;
    },
    cancel: () => {
      cancelled = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}

/** The innermost `cause` of an error (kafkajs wraps what it caught: KafkaJSNonRetriableError). */
function rootCause(err: unknown): Error | undefined {
  let root = err instanceof Error ? err : undefined;
  for (let depth = 0; root?.cause instanceof Error && depth < 10; depth++) root = root.cause;
  return root;
}
