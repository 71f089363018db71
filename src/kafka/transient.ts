import { KafkaJSError } from 'kafkajs';
import { HooklineError, errorMessage } from '../errors';
import type { Logger } from '../observability/logger';

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
  /** Longest wait between tries (5 s). */
  maxDelayMs?: number;
}

export const isRetriableHooklineError = (err: unknown): boolean =>
  err instanceof HooklineError && err.retriable;

/** kafkajs errors it marks retriable, e.g. NOT_LEADER_FOR_PARTITION while a new partition's leader settles. */
export const isRetriableKafkaError = (err: unknown): boolean => err instanceof KafkaJSError && err.retriable;

/** Runs `fn` until it settles with anything but a retriable failure, waiting longer each time. */
export async function retryTransient<T>(fn: () => Promise<T>, options: RetryOptions): Promise<T> {
  const maxDelayMs = options.maxDelayMs ?? 5_000;
  const isRetriable = options.isRetriable ?? isRetriableHooklineError;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!isRetriable(err) || !options.isRunning() || attempt >= (options.maxAttempts ?? Infinity))
        throw err;
      const delayMs = Math.min(maxDelayMs, 100 * 2 ** attempt);
      options.logger.warn(
        { ...options.context, attempt, delayMs, reason: errorMessage(err) },
        'transient failure; retrying',
      );
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}
