import type { Consumer, RetryOptions } from 'kafkajs';
import { backoffDelayMs, type BackoffPolicy } from '../core/backoff';
import { systemClock, type Clock } from '../core/clock';
import { errorMessage } from '../core/errors';
import type { Logger } from '../observability/logger';

/** Waits before restarting a consumer kafkajs left stopped after a crash: 1 s, doubling to 30 s. */
export const CRASH_RESTART_BACKOFF: BackoffPolicy = { initialDelayMs: 1_000, maxDelayMs: 30_000 };

/**
 * A crash this soon after the last restart counts as the same streak (the wait doubles); one later
 * starts a new streak (1 s again). A consumer that crashes while it rejoins, or soon after, thus
 * backs off to 30 s instead of rejoining its group every second.
 */
export const CRASH_STREAK_MS = 60_000;

/**
 * kafkajs's `retry` option for a consumer under `restartAfterCrashes`: after a retriable crash,
 * kafkajs restarts it unless its owner began to stop meanwhile (its restart would otherwise bring
 * a stopped process back into the group). `retries` as kafkajs's default.
 */
export function stoppableRetry(stopping: () => boolean): RetryOptions {
  return { retries: 5, restartOnFailure: async () => !stopping() };
}

export interface CrashRestartOptions {
  consumer: Consumer;
  /** True once the consumer's owner began to stop (or gave it up): no restart then. */
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
  clock?: Clock;
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
 * again after CRASH_RESTART_BACKOFF, unless its owner stops; the wait doubles while restarts fail
 * or the consumer crashes again within CRASH_STREAK_MS of one.
 *
 * It also closes a race of kafkajs's own restart: kafkajs decides to restart (`stoppableRetry`
 * says no once the owner stops) and arms its timer just after the CRASH event, maybe after a stop
 * of the owner cleared the last one; stopping the consumer again then clears the new one.
 */
export function restartAfterCrashes(options: CrashRestartOptions): CrashRestart {
  const { consumer, logger, context } = options;
  const backoff = options.backoff ?? CRASH_RESTART_BACKOFF;
  const clock = options.clock ?? systemClock;
  const timers = new Set<NodeJS.Timeout>();
  let cancelled = false;
  let crashes = 0;
  /** Failures (crashes and failed restarts) of the current streak, and when the last restart ran. */
  let streak = 0;
  let restartedAtMs: number | undefined;
  const stopped = () => cancelled || options.stopping();

  const schedule = (err: unknown) => {
    streak++;
    const delayMs = backoffDelayMs(streak, backoff);
    // A crash is a bug somewhere: the stack of what kafkajs wrapped says where.
    const stack = rootCause(err)?.stack;
    logger.error(
      { ...context, err: errorMessage(err), stack, restartInMs: delayMs },
      'consumer crashed; restarting it',
    );
    const timer = setTimeout(() => {
      timers.delete(timer);
      void restart();
    }, delayMs);
    timer.unref(); // a process is kept open by what it serves, not by a consumer it may restart
    timers.add(timer);
  };

  const restart = async () => {
    if (stopped()) return;
    const crashesBefore = crashes;
    try {
      await consumer.connect();
      // A stop meanwhile disconnected before this connect ended: disconnect again. Checked right
      // before run(), which starts synchronously enough for a later stop to see it (runner-stop.ts).
      if (stopped()) return void (await consumer.disconnect().catch(() => undefined));
      restartedAtMs = clock.now();
      await options.run();
      // A crash while it joined ends run() quietly (kafkajs's onCrash): that crash is scheduled.
      if (crashes === crashesBefore) logger.info(context, 'consumer restarted after a crash');
    } catch (err) {
      if (!stopped()) schedule(err);
    }
  };

  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (payload.restart) {
      if (options.stopping()) setImmediate(() => void consumer.stop().catch(() => undefined));
      return; // kafkajs restarts it
    }
    if (stopped()) return;
    crashes++;
    const nowMs = clock.now();
    if (restartedAtMs === undefined || nowMs - restartedAtMs >= CRASH_STREAK_MS) streak = 0;
    schedule(payload.error);
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
