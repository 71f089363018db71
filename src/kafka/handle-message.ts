import { backoffDelayMs, sleep as defaultSleep } from '../core/backoff';
import { errorMessage, WorkNotHeldError } from '../core/errors';
import type { Logger } from '../observability/logger';
import type { ConsumedMessage, MessageHandler } from './consumer-options';

/**
 * How handling a message ended: `done` (commit it); `not-held` (declined without starting, see
 * ConsumedMessage.held: hand it out again); `abandoned` (failed while the consumer stops: left
 * uncommitted, handled again after the restart).
 */
export type HandleOutcome = 'done' | 'not-held' | 'abandoned';

/** Runs the handler until it resolves, retrying its failures with backoff (logged) until stopping. */
export async function handleMessage(
  handler: MessageHandler,
  message: ConsumedMessage,
  options: { stopping: () => boolean; logger: Logger; sleep?: (ms: number) => Promise<void> },
): Promise<HandleOutcome> {
  const sleep = options.sleep ?? defaultSleep;
  for (let attempt = 1; ; attempt++) {
    try {
      await handler(message);
      return 'done';
    } catch (err) {
      if (err instanceof WorkNotHeldError) return 'not-held';
      if (options.stopping()) return 'abandoned';
      const retryInMs = backoffDelayMs(attempt);
      const { topic, partition } = message;
      options.logger.error(
        { err: errorMessage(err), topic, partition, offset: message.message.offset, retryInMs },
        'message handler failed; retrying',
      );
      await sleep(retryInMs);
    }
  }
}
