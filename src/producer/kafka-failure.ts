import {
  KafkaJSError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSProtocolError,
  KafkaJSTimeout,
} from '../kafka/kafkajs';
import { KafkaUnavailableError } from '../core/errors';
import { KafkaWriteRefusedError } from './errors';

/**
 * What a failed send of the Kafka transport means for its batch. BatchingProducer reports every
 * kafkajs failure as KafkaUnavailableError (retriable), kafkajs's error as its `cause`: right for
 * the service, which must never lose a record, but a batch Kafka refuses for good (not authorised,
 * record too large, ...) would then be retried without end and block the queue behind it. So
 * kafkajs's own `retriable` flag decides: false → KafkaWriteRefusedError (not retriable: the
 * batcher drops the batch), except where kafkajs gave up waiting rather than being refused
 * (retries exhausted, a lock timeout), which stay retriable. Anything else is returned as it is.
 */
export function kafkaSendFailure(err: unknown): unknown {
  const kafkajsError = err instanceof KafkaUnavailableError ? err.cause : err;
  return refusedForGood(kafkajsError)
    ? new KafkaWriteRefusedError(kafkaErrorType(kafkajsError), kafkajsError)
    : err;
}

function refusedForGood(err: unknown): err is KafkaJSError {
  if (!(err instanceof KafkaJSError) || err.retriable) return false;
  // Both are "non-retriable" to kafkajs's own retry loop, yet say nothing about the batch.
  return !(err instanceof KafkaJSNumberOfRetriesExceeded || err instanceof KafkaJSTimeout);
}

/** kafkajs's error type (`TOPIC_AUTHORIZATION_FAILED`, ...), found on the error or its cause. */
function kafkaErrorType(err: KafkaJSError): string | undefined {
  if (err instanceof KafkaJSProtocolError) return err.type;
  const cause: unknown = err.cause;
  return cause instanceof KafkaJSProtocolError ? cause.type : undefined;
}
