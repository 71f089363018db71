import {
  KafkaJSConnectionError,
  KafkaJSError,
  KafkaJSLockTimeout,
  KafkaJSNonRetriableError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSProtocolError,
  KafkaJSRequestTimeoutError,
} from 'kafkajs';
import { KafkaUnavailableError } from '../../../src/core/errors';
import { KafkaWriteRefusedError } from '../../../src/producer/errors';
import { kafkaSendFailure } from '../../../src/producer/kafka-failure';

/** What BatchingProducer rejects with: every kafkajs failure as KafkaUnavailableError, kafkajs's error as cause. */
const fromBatchingProducer = (cause: Error) =>
  new KafkaUnavailableError(`Kafka write failed: ${cause.message}`, { cause });

// kafkajs's constructors are typed loosely (their first argument is an Error or a string).
const protocolError = (type: string, retriable: boolean) =>
  new KafkaJSProtocolError({ type, code: 0, retriable, message: type } as unknown as Error);
// As kafkajs's retry loop wraps an error it may not retry (its typings omit the second argument).
const NonRetriable = KafkaJSNonRetriableError as unknown as new (e: Error, o: { cause: Error }) => Error;
const nonRetriableWrapper = (cause: Error) => new NonRetriable(cause, { cause });

describe('kafkaSendFailure', () => {
  it.each([
    [
      'TOPIC_AUTHORIZATION_FAILED',
      protocolError('TOPIC_AUTHORIZATION_FAILED', false),
      'TOPIC_AUTHORIZATION_FAILED',
    ],
    ['record too large', protocolError('MESSAGE_TOO_LARGE', false), 'MESSAGE_TOO_LARGE'],
    [
      "kafkajs's retry loop bailing out",
      nonRetriableWrapper(protocolError('INVALID_RECORD', false)),
      'INVALID_RECORD',
    ],
    [
      'a non-retriable kafkajs error without a type',
      new KafkaJSNonRetriableError('Invalid topic'),
      undefined,
    ],
  ])('%s: refused for good, not retriable (the batch is dropped)', (_, kafkajsError, reason) => {
    const err = kafkaSendFailure(fromBatchingProducer(kafkajsError));
    expect(err).toBeInstanceOf(KafkaWriteRefusedError);
    expect(err).toMatchObject({ retriable: false, code: 'kafka_write_refused', reason, cause: kafkajsError });
  });

  it.each([
    ['a retriable protocol error', protocolError('NOT_LEADER_FOR_PARTITION', true)],
    ['a connection error', new KafkaJSConnectionError('Connection error: ECONNREFUSED')],
    ['a request timeout', new KafkaJSRequestTimeoutError('Request Produce timed out')],
    [
      'retries exhausted (kafkajs gave up on a retriable error)',
      new KafkaJSNumberOfRetriesExceeded(new KafkaJSConnectionError('down'), {
        retryCount: 5,
        retryTime: 1_000,
      }),
    ],
    [
      'a lock timeout',
      new (KafkaJSLockTimeout as unknown as new (message: string) => Error)('Timeout while acquiring lock'),
    ],
    ['a generic kafkajs error', new KafkaJSError('something')],
    ['an error that is not kafkajs', new Error('socket hang up')],
  ])('%s: stays a retriable KafkaUnavailableError (the batch is kept)', (_, cause) => {
    const original = fromBatchingProducer(cause);
    expect(kafkaSendFailure(original)).toBe(original);
  });

  it('leaves an ack timeout of BatchingProducer (no cause) as it is', () => {
    const original = new KafkaUnavailableError('Kafka did not acknowledge within 10000 ms');
    expect(kafkaSendFailure(original)).toBe(original);
  });
});
