import * as kafkajs from 'kafkajs';
import {
  KafkaJSConnectionError,
  KafkaJSNonRetriableError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSProtocolError,
  KafkaJSSASLAuthenticationError,
} from 'kafkajs';
import { ConfigError } from '../../../src/core/errors';
import { BrokerOutageWatch, isPermanentStartError, isTransientStartError } from '../../../src/kafka/outage';

/** kafkajs errors as kafkajs itself builds them (its type declarations list fewer arguments). */
const make = (ctor: unknown, ...args: unknown[]): Error =>
  new (ctor as new (...a: unknown[]) => Error)(...args);

const exhausted = (cause: Error) =>
  new KafkaJSNumberOfRetriesExceeded(cause, { retryCount: 8, retryTime: 1_000 });

describe('start-up failures: a broker outage or not', () => {
  const connection = new KafkaJSConnectionError('Connection error: write ECONNRESET');
  const sasl = make(KafkaJSSASLAuthenticationError, 'SASL PLAIN authentication failed');
  it.each<[string, Error, boolean, boolean]>([
    // what, error, transient, permanent
    ['a socket error', connection, true, false],
    [
      'a closed connection',
      make((kafkajs as Record<string, unknown>).KafkaJSConnectionClosedError, 'Closed connection'),
      true,
      false,
    ],
    ['kafkajs retries exhausted on a refused connection', exhausted(connection), true, false],
    [
      'a connection error wrapped as non-retriable',
      make(KafkaJSNonRetriableError, connection, { cause: connection }),
      true,
      false,
    ],
    [
      'no leader yet (retriable protocol error)',
      make(KafkaJSProtocolError, {
        message: 'no leader',
        type: 'LEADER_NOT_AVAILABLE',
        code: 5,
        retriable: true,
      }),
      true,
      false,
    ],
    [
      'an authorisation refused',
      make(KafkaJSProtocolError, {
        message: 'denied',
        type: 'TOPIC_AUTHORIZATION_FAILED',
        code: 29,
        retriable: false,
      }),
      false,
      false,
    ],
    ['bad credentials', sasl, false, true],
    [
      'bad credentials wrapped by kafkajs retries',
      make(KafkaJSNonRetriableError, sasl, { cause: sasl }),
      false,
      true,
    ],
    ['invalid configuration', new ConfigError('HOOKLINE_X', 'bad'), false, true],
    ['a TypeError', new TypeError("Cannot read properties of null (reading 'topicMetadata')"), false, false],
    ['an Error caused by a connection error', new Error('reading x', { cause: connection }), true, false],
  ])('%s', (_what, err, transient, permanent) => {
    expect({ transient: isTransientStartError(err), permanent: isPermanentStartError(err) }).toEqual({
      transient,
      permanent,
    });
  });
});

const ERROR = 1;
const WARN = 2;

describe('BrokerOutageWatch', () => {
  it('notes when kafkajs logged a broker going away, and nothing else', () => {
    let now = 1_000;
    const watch = new BrokerOutageWatch({ now: () => now });
    expect(watch.seenSince(0)).toBe(false);
    watch.observe({
      namespace: 'BrokerPool',
      level: ERROR,
      message:
        'Failed to connect to seed broker, trying another broker from the list: SASL PLAIN authentication failed',
    });
    watch.observe({ namespace: 'Runner', level: WARN, message: 'The group is rebalancing, re-joining' });
    expect(watch.seenSince(0)).toBe(false);
    now = 2_000;
    watch.observe({
      namespace: 'Connection',
      level: ERROR,
      message: 'Connection error: connect ECONNREFUSED 127.0.0.1:9092',
    });
    expect(watch.seenSince(2_000)).toBe(true);
    expect(watch.seenSince(2_001)).toBe(false);
    now = 3_000;
    watch.observe({
      namespace: 'Consumer',
      level: ERROR,
      message: 'Crash: KafkaJSConnectionClosedError: Closed connection',
    });
    expect(watch.seenSince(2_500)).toBe(true);
    now = 4_000;
    watch.observe({ namespace: 'Connection', level: ERROR, message: 'Connection timeout' });
    expect(watch.seenSince(3_500)).toBe(true);
  });
});
