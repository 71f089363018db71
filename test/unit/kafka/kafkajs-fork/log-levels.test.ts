import { logLevel } from '../../../../src/kafka/kafkajs';
import {
  kafkajsLogLevel,
  retriableProtocolMessages,
  routineProtocolMessages,
} from '../../../../src/kafka/kafkajs-fork/log-levels';

describe('kafkajsLogLevel', () => {
  const retriable = retriableProtocolMessages();
  const response = (error: string) => ({ message: 'Response GroupCoordinator(key: 10, version: 2)', error });

  it.each([
    // What a broker answers in its routine, and kafkajs retries: debug (its caller logs what outlasts the retries).
    [
      'a group coordinator still loading (start-up)',
      logLevel.ERROR,
      response("The coordinator is loading and hence can't process requests for this group"),
      'debug',
    ],
    ['no group coordinator yet', logLevel.ERROR, response('The group coordinator is not available'), 'debug'],
    [
      'a leader moving',
      logLevel.ERROR,
      response('This server is not the leader for that topic-partition'),
      'debug',
    ],
    [
      'a transaction busy',
      logLevel.ERROR,
      response(
        'The producer attempted to update a transaction while another concurrent operation on the same transaction was ongoing',
      ),
      'debug',
    ],
    [
      'topics another process created first (ensureTopics checks)',
      logLevel.ERROR,
      { message: 'Response CreateTopics(key: 19, version: 3)', error: 'Topic creation errors' },
      'debug',
    ],
    // What no retry cures, or is not a broker's answer: kafkajs's level.
    [
      'a refused authorisation',
      logLevel.ERROR,
      response('Not authorized to access topics: [Topic authorization failed]'),
      'error',
    ],
    ['an unknown error text', logLevel.ERROR, response('something new'), 'error'],
    [
      'a connection error',
      logLevel.ERROR,
      { message: 'Connection error: connect ECONNREFUSED 127.0.0.1:9092' },
      'error',
    ],
    [
      'a retriable text outside a response line',
      logLevel.ERROR,
      { message: 'Crash', error: 'The group coordinator is not available' },
      'error',
    ],
    ['a warning', logLevel.WARN, { message: 'anything' }, 'warn'],
    ['info', logLevel.INFO, { message: 'anything' }, 'info'],
    ['debug', logLevel.DEBUG, { message: 'anything' }, 'debug'],
  ] as const)('%s', (_what, level, entry, expected) => {
    expect(kafkajsLogLevel(level, entry, retriable)).toBe(expected);
  });

  it('reads the retriable errors from kafkajs’s own table', () => {
    expect(retriable.size).toBeGreaterThan(10);
    expect(retriable.has('The group coordinator is not available')).toBe(true);
    expect(retriable.has('Not authorized to access topics: [Topic authorization failed]')).toBe(false);
  });

  it('keeps every failed response at error when the table cannot be read', () => {
    const none = retriableProtocolMessages((() => {
      throw new Error('not found');
    }) as unknown as NodeRequire);
    expect(none.size).toBe(0);
    expect(kafkajsLogLevel(logLevel.ERROR, response('The group coordinator is not available'), none)).toBe(
      'error',
    );
  });
});

describe('a group rebalancing is routine: debug', () => {
  const retriable = retriableProtocolMessages();
  const routine = routineProtocolMessages();
  const rebalancing = 'The group is rebalancing, so a rejoin is needed';

  it('reads the message of REBALANCE_IN_PROGRESS from kafkajs’s table', () => {
    expect([...routine]).toEqual([rebalancing]);
  });

  it.each([
    ['the failed heartbeat kafkajs logs at error', logLevel.ERROR, 'Response Heartbeat(key: 12, version: 3)'],
    ['the rejoin kafkajs logs at warn', logLevel.WARN, 'The group is rebalancing, re-joining'],
  ])('%s', (_, level, message) => {
    expect(kafkajsLogLevel(level, { message, error: rebalancing }, retriable, routine)).toBe('debug');
    // Without the table of routine errors, as before: a failed heartbeat stays an error.
    expect(kafkajsLogLevel(level, { message, error: rebalancing }, retriable)).not.toBe('debug');
  });

  it('leaves other group errors at their level', () => {
    const entry = {
      message: 'Response Heartbeat(key: 12, version: 3)',
      error: 'The coordinator is not aware of this member',
    };
    expect(kafkajsLogLevel(logLevel.ERROR, entry, retriable, routine)).toBe('error');
  });
});
