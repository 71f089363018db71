import { HooklineError } from '../../src/core/errors';

/** Where in the stack's life an error happened. */
export type StackStage = 'download' | 'start' | 'ready' | 'topics' | 'stop' | 'state' | 'lock';

export interface StackErrorOptions {
  stage: StackStage;
  /** Last lines of the failing process's log, appended to the message. */
  logTail?: string;
  cause?: unknown;
}

/**
 * The local development stack (Kafka + schema registry) could not be downloaded, started or
 * stopped. Not retriable as such: the message says what to fix (and shows the process's log).
 */
export class StackError extends HooklineError {
  readonly retriable = false;
  readonly code = 'devstack_failed';
  readonly stage: StackStage;
  readonly logTail: string | undefined;

  constructor(message: string, options: StackErrorOptions) {
    const tail = options.logTail?.trim();
    super(tail ? `${message}\n--- last log lines ---\n${tail}` : message, { cause: options.cause });
    this.stage = options.stage;
    this.logTail = tail;
  }
}
