import { HooklineError, StoppedError, errorMessage } from './errors';
import type { Logger } from '../observability/logger';

/** How waits grow between tries of an operation that failed for a passing reason. */
export interface BackoffPolicy {
  /** Wait before the second try. */
  initialDelayMs: number;
  /** Waits never grow past this. */
  maxDelayMs: number;
}

/** 100 ms, 200 ms, 400 ms, ... up to 5 s: the default for reaching Kafka or the schema registry. */
export const DEFAULT_BACKOFF: BackoffPolicy = { initialDelayMs: 100, maxDelayMs: 5_000 };

/**
 * The wait after the `failures`-th failure (1 = after the first): doubles each time from
 * `initialDelayMs`, capped at `maxDelayMs`. The one backoff rule of the whole service.
 */
export function backoffDelayMs(failures: number, policy: BackoffPolicy = DEFAULT_BACKOFF): number {
  const exponent = Math.max(0, failures - 1);
  return Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** Math.min(exponent, 30));
}

/** Resolves after `ms`, or at once when `signal` aborts; the timer does not hold the process open. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return wait(ms, false, signal);
}

/**
 * Resolves after `ms` (or when `signal` aborts), holding the process open meanwhile: for a wait
 * that may be all the process has left to do, such as start-up between two attempts, once the
 * failed one closed everything.
 */
export function sleepHoldingProcess(ms: number, signal?: AbortSignal): Promise<void> {
  return wait(ms, true, signal);
}

function wait(ms: number, hold: boolean, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    if (!hold) timer.unref();
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * `promise`, or a StoppedError (`what`: what was being waited for) as soon as `signal` aborts:
 * for a wait that cannot be cancelled itself (a kafkajs client's connect), which is left to
 * settle on its own.
 */
export function unlessStopped<T>(promise: Promise<T>, what: string, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(new StoppedError(what));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new StoppedError(what));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

export interface RetryOptions {
  /** Retrying stops (and the last error is thrown) once this returns false. */
  isRunning: () => boolean;
  logger: Logger;
  /** Logged with each retry. */
  context: Record<string, unknown>;
  /** Which failures are worth another try: by default a retriable HooklineError (registry or Kafka down). */
  isRetriable?: (err: unknown) => boolean;
  /** Tries at most (unbounded by default: until `isRunning` turns false). */
  maxAttempts?: number;
  /** Default DEFAULT_BACKOFF. */
  backoff?: BackoffPolicy;
  /** Aborted when the process stops: no further try, and a wait between tries ends at once. */
  signal?: AbortSignal;
}

export const isRetriableHooklineError = (err: unknown): boolean =>
  err instanceof HooklineError && err.retriable;

/**
 * The level a retried transient failure is logged at: its first occurrence is debug (a leader
 * just elected, a coordinator still loading: a fresh start meets them, and the first retry passes);
 * from the second failure in a row on, warn.
 */
export const retriedFailureLevel = (failures: number): 'debug' | 'warn' => (failures <= 1 ? 'debug' : 'warn');

/** Runs `fn` until it settles with anything but a retriable failure, waiting longer each time. */
export async function retryTransient<T>(fn: () => Promise<T>, options: RetryOptions): Promise<T> {
  const isRetriable = options.isRetriable ?? isRetriableHooklineError;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      const { signal } = options;
      if (
        !isRetriable(err) ||
        !options.isRunning() ||
        signal?.aborted ||
        attempt >= (options.maxAttempts ?? Infinity)
      )
        throw err;
      const delayMs = backoffDelayMs(attempt + 1, options.backoff);
      options.logger[retriedFailureLevel(attempt)](
        { ...options.context, attempt, delayMs, reason: errorMessage(err) },
        'transient failure; retrying',
      );
      await sleep(delayMs, signal);
      if (signal?.aborted) throw err;
    }
  }
}
