import { HooklineError } from '../core/errors';
import type { Rejection, RejectionCode } from '../events/rejection';

export {
  ConfigError,
  HooklineError,
  KafkaUnavailableError,
  RegistryUnavailableError,
  UnencodableRecordError,
} from '../core/errors';
export { CatalogLagError } from '../catalog/reader';

/**
 * Errors the producer library throws or reports. Every one is a HooklineError: `instanceof` to
 * branch, `retriable` says whether the same call can succeed later, `code` is stable.
 */

/** A call the tracking API would refuse: a required field missing, a field of the wrong type. */
export class InvalidMessageError extends HooklineError {
  readonly retriable = false;
  constructor(
    /** The tracking API's rejection code for the same problem (`missing_identity`, `missing_event`, ...). */
    readonly code: RejectionCode,
    message: string,
  ) {
    super(message);
  }

  static from(rejection: Rejection): InvalidMessageError {
    return rejection.code === 'event_too_large'
      ? new MessageTooLargeError(rejection.reason)
      : new InvalidMessageError(rejection.code, rejection.reason);
  }
}

/** One call is over 32 KB of JSON (the tracking API's per-event limit). */
export class MessageTooLargeError extends InvalidMessageError {
  constructor(message: string) {
    super('event_too_large', message);
  }
}

/** The write key belongs to no source (or its source was deleted). */
export class InvalidWriteKeyError extends HooklineError {
  readonly retriable = false;
  readonly code = 'invalid_write_key';
  constructor(message = 'the write key does not belong to any source') {
    super(message);
  }
}

/** The write key's source is disabled: the tracking API would refuse its events too. */
export class SourceDisabledError extends HooklineError {
  readonly retriable = false;
  readonly code = 'source_disabled';
  constructor(readonly sourceId: string | undefined) {
    super(`the source${sourceId ? ` ${sourceId}` : ''} of this write key is disabled`);
  }
}

/** A Hookline topic the library writes to or reads from does not exist. */
export class TopicNotFoundError extends HooklineError {
  readonly retriable = false;
  readonly code = 'topic_not_found';
  constructor(readonly topic: string) {
    super(
      `topic ${topic} does not exist; start Hookline with this topic prefix first (it creates its topics)`,
    );
  }
}

/** A call after `close()`. */
export class ClientClosedError extends HooklineError {
  readonly retriable = false;
  readonly code = 'client_closed';
  constructor() {
    super('the analytics client is closed');
  }
}

/**
 * `maxQueuedMessages` messages are waiting for Kafka (or the tracking API) to acknowledge them;
 * the call was not queued. Retriable: room frees up as batches are acknowledged.
 */
export class QueueFullError extends HooklineError {
  readonly retriable = true;
  readonly code = 'queue_full';
  constructor(readonly maxQueuedMessages: number) {
    super(`${maxQueuedMessages} messages are already waiting to be sent; the call was not queued`);
  }
}

/** The tracking API (transport 'http') answered a batch with an error status, or not at all. */
export class TrackingApiError extends HooklineError {
  readonly retriable: boolean;
  constructor(
    /** The API's error code (`invalid_write_key`, ...), or `http_<status>` / `unreachable`. */
    readonly code: string,
    message: string,
    /** HTTP status, or undefined when no answer came. */
    readonly status: number | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.retriable = status === undefined || status === 408 || status === 429 || status >= 500;
  }
}

/**
 * Kafka refused a batch for good (kafkajs says the error is not retriable: not authorised for the
 * topic, a record too large, ...). The batch is dropped; `reason` is kafkajs's error type when it
 * has one (`TOPIC_AUTHORIZATION_FAILED`, `MESSAGE_TOO_LARGE`, ...).
 */
export class KafkaWriteRefusedError extends HooklineError {
  readonly retriable = false;
  readonly code = 'kafka_write_refused';
  constructor(
    readonly reason: string | undefined,
    cause: Error,
  ) {
    super(`Kafka refused the batch${reason ? ` (${reason})` : ''}: ${cause.message}`, { cause });
  }
}

/** The tracking API accepted a batch but refused some of its events (listed). */
export class EventsRejectedError extends HooklineError {
  readonly retriable = false;
  readonly code = 'events_rejected';
  constructor(readonly rejected: { messageId?: string; code: string; reason: string }[]) {
    super(`the tracking API refused ${rejected.length} event(s): ${rejected[0]?.code ?? ''}`);
  }
}

/**
 * `close()` could not deliver everything that was queued: `count` messages were not acknowledged.
 * `inDoubt` of them were sent and not answered when close() gave up: Kafka may still write those.
 */
export class MessagesNotDeliveredError extends HooklineError {
  readonly retriable = false;
  readonly code = 'messages_not_delivered';
  constructor(
    readonly count: number,
    cause: unknown,
    readonly inDoubt = 0,
  ) {
    super(
      `${count} queued message(s) could not be delivered before close` +
        (inDoubt > 0 ? `; ${inDoubt} of them were sent, not answered, and may still be written` : ''),
      { cause },
    );
  }
}
