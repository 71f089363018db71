import { logLevel } from '../../../src/kafka/kafkajs';
import { kafkajsLogLevel, retriableProtocolMessages } from '../../../src/kafka/log-levels';

describe('kafkajsLogLevel', () => {
  const retriable = retriableProtocolMessages();
  const response = (error: string) => ({ message: 'Response GroupCoordinator(key: 10, version: 2)', error });

  it.each([
    // What a broker answers in its routine, and kafkajs retries: warnings.
    [
      'a group coordinator still loading (start-up)',
      logLevel.ERROR,
      response("The coordinator is loading and hence can't process requests for this group"),
      'warn',
    ],
    ['no group coordinator yet', logLevel.ERROR, response('The group coordinator is not available'), 'warn'],
    [
      'a leader moving',
      logLevel.ERROR,
      response('This server is not the leader for that topic-partition'),
      'warn',
    ],
    [
      'a transaction busy',
      logLevel.ERROR,
      response(
        'The producer attempted to update a transaction while another concurrent operation on the same transaction was ongoing',
      ),
      'warn',
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
