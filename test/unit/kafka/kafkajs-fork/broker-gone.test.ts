import { logLevel } from '../../../../src/kafka/kafkajs';
import { brokerGoneLog } from '../../../../src/kafka/kafkajs-fork/broker-gone';

describe('brokerGoneLog: the kafkajs log lines that say a broker went away', () => {
  it.each([
    [
      'a socket error',
      'Connection',
      logLevel.ERROR,
      'Connection error: connect ECONNREFUSED 127.0.0.1:9092',
      true,
    ],
    ['a connection timeout', 'Connection', logLevel.ERROR, 'Connection timeout', true],
    [
      'a consumer crashed on a closed connection',
      'Consumer',
      logLevel.ERROR,
      'Crash: KafkaJSConnectionClosedError: Closed connection',
      true,
    ],
    [
      'a consumer crashed on a connection error',
      'Consumer',
      logLevel.ERROR,
      'Crash: KafkaJSConnectionError: Connection error: read ECONNRESET',
      true,
    ],
    [
      'a failed response (the broker answered)',
      'Connection',
      logLevel.ERROR,
      'Response Metadata(key: 3, version: 6)',
      false,
    ],
    [
      'a consumer crashed on anything else',
      'Consumer',
      logLevel.ERROR,
      'Crash: KafkaJSProtocolError: Not authorized to access topics: [Topic authorization failed]',
      false,
    ],
    [
      'bad credentials',
      'BrokerPool',
      logLevel.ERROR,
      'Failed to connect to seed broker, trying another broker from the list: SASL PLAIN authentication failed',
      false,
    ],
    ['a rebalance', 'Runner', logLevel.WARN, 'The group is rebalancing, re-joining', false],
    ['a connection line below error level', 'Connection', logLevel.WARN, 'Connection timeout', false],
    ['connection text from another logger', 'Producer', logLevel.ERROR, 'Connection error: x', false],
  ])('%s', (_, namespace, level, message, expected) => {
    expect(brokerGoneLog({ namespace, level, message })).toBe(expected);
  });
});
