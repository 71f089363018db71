import { ConfigError } from '../../../src/core/errors';
import {
  debugEnabled,
  resolveCommon,
  resolveHttpEndpoint,
  resolveKafkaConnection,
  type KafkaTransportOptions,
} from '../../../src/producer/options';
import { systemScheduler } from '../../../src/producer/scheduler';

describe('debugEnabled', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['analytics', true],
    ['express,analytics', true],
    ['express analytics', true],
    ['*', true],
    ['analytics*', true],
    ['analytic', false],
    ['express:*', false],
    ['*,-analytics', false],
    ['-analytics,*', false],
  ])('DEBUG=%j → %s', (value, expected) => {
    expect(debugEnabled(value)).toBe(expected);
  });
});

describe('resolveKafkaConnection', () => {
  const env = {
    KAFKA_BROKERS: 'k1:9092,k2:9092',
    SCHEMA_REGISTRY_URL: 'http://registry:8081',
    HOOKLINE_TOPIC_PREFIX: 'acme',
    HOOKLINE_KAFKA_ACK_TIMEOUT: '3s',
    HOOKLINE_RETRY_SCHEDULE: 'not read by the library',
  };

  it('reads the service variables by default', () => {
    expect(resolveKafkaConnection({ env })).toEqual({
      brokers: ['k1:9092', 'k2:9092'],
      clientId: 'hookline-producer',
      ssl: false,
      sasl: undefined,
      registry: { url: 'http://registry:8081', username: undefined, password: undefined },
      topicPrefix: 'acme',
      ackTimeoutMs: 3_000,
      connectTimeoutMs: 30_000,
    });
  });

  it('lets options win over the environment', () => {
    const options: KafkaTransportOptions = {
      brokers: ['other:9093'],
      registry: { url: 'https://r.example', username: 'u', password: 'p' },
      topicPrefix: 'mine',
      ssl: true,
      sasl: { mechanism: 'scram-sha-512', username: 'su', password: 'sp' },
      ackTimeoutMs: 500,
    };
    expect(resolveKafkaConnection({ env, ...options })).toMatchObject(options);
  });

  it.each<[KafkaTransportOptions, string]>([
    [{ env: {} }, 'KAFKA_BROKERS'],
    [{ env: { KAFKA_BROKERS: 'k:9092' } }, 'SCHEMA_REGISTRY_URL'],
    [{ env, brokers: ['no port'] }, 'KAFKA_BROKERS'],
    [{ env, registry: 'ftp://r' }, 'SCHEMA_REGISTRY_URL'],
    [{ env, topicPrefix: 'bad prefix' }, 'HOOKLINE_TOPIC_PREFIX'],
    [{ env, ackTimeoutMs: 0 }, 'ackTimeoutMs'],
  ])('rejects %j naming %s', (options, key) => {
    expect(() => resolveKafkaConnection(options)).toThrow(ConfigError);
    expect(() => resolveKafkaConnection(options)).toThrow(expect.objectContaining({ key }));
  });
});

describe('resolveCommon', () => {
  it('has the spec defaults and the unref’d system scheduler', () => {
    const common = resolveCommon({ env: {} });
    expect(common).toMatchObject({ flushAt: 20, flushAfterMs: 5_000, maxQueuedMessages: 10_000 });
    expect(common.scheduler).toBe(systemScheduler);
    expect(common.logger.isLevelEnabled('debug')).toBe(false);
  });

  it('turns debug logging on with DEBUG=analytics', () => {
    expect(resolveCommon({ env: { DEBUG: 'analytics' } }).logger.isLevelEnabled('debug')).toBe(true);
  });

  it.each([{ flushAt: 0 }, { flushAt: 1.5 }, { flushAfterMs: 0 }, { maxQueuedMessages: -1 }])(
    'rejects %j',
    (options) => {
      expect(() => resolveCommon({ env: {}, ...options })).toThrow(ConfigError);
    },
  );
});

describe('timer values', () => {
  const kafka = { brokers: ['b:9092'], registry: 'http://r', env: {} };

  it.each([
    ['flushAfterMs', () => resolveCommon({ env: {}, flushAfterMs: 2_147_483_648 })],
    ['closeTimeoutMs', () => resolveCommon({ env: {}, closeTimeoutMs: 3_000_000_000 })],
    ['ackTimeoutMs', () => resolveKafkaConnection({ ...kafka, ackTimeoutMs: 3_000_000_000 })],
    ['connectTimeoutMs', () => resolveKafkaConnection({ ...kafka, connectTimeoutMs: 3_000_000_000 })],
    [
      'requestTimeoutMs',
      () => resolveHttpEndpoint({ transport: 'http', endpoint: 'http://a', requestTimeoutMs: 3_000_000_000 }),
    ],
  ])('refuses %s above 2^31 - 1 ms, which Node would fire after 1 ms', (key, resolve) => {
    expect(resolve).toThrow(ConfigError);
    expect(resolve).toThrow(expect.objectContaining({ key, message: expect.stringContaining('2147483647') }));
  });

  it('takes 2^31 - 1 ms itself', () => {
    expect(resolveCommon({ env: {}, flushAfterMs: 2_147_483_647 }).flushAfterMs).toBe(2_147_483_647);
    expect(resolveKafkaConnection({ ...kafka, ackTimeoutMs: 2_147_483_647 }).ackTimeoutMs).toBe(
      2_147_483_647,
    );
  });
});

describe('resolveHttpEndpoint', () => {
  it.each([
    ['http://api.example:8080', 'http://api.example:8080/v1/batch'],
    ['https://api.example/hookline/', 'https://api.example/hookline/v1/batch'],
    ['https://api.example.com/?tenant=t1', 'https://api.example.com/v1/batch?tenant=t1'],
    ['https://api.example.com/in//?a=1&b=2', 'https://api.example.com/in/v1/batch?a=1&b=2'],
  ])('%s → %s', (endpoint, batchUrl) => {
    expect(resolveHttpEndpoint({ transport: 'http', endpoint }).batchUrl).toBe(batchUrl);
  });

  it.each(['not a url', 'ftp://api.example', 'https://api.example/#x', 'https://user:s3cret@api.example/'])(
    'rejects %s with a non-retriable ConfigError',
    (endpoint) => {
      expect(() => resolveHttpEndpoint({ transport: 'http', endpoint })).toThrow(ConfigError);
      expect(() => resolveHttpEndpoint({ transport: 'http', endpoint })).toThrow(
        expect.objectContaining({ retriable: false, key: 'endpoint' }),
      );
    },
  );

  it('never echoes credentials given in the URL', () => {
    for (const endpoint of ['https://user:s3cret@api.example/', 'https://s3cret@api.example/']) {
      let message = '';
      try {
        resolveHttpEndpoint({ transport: 'http', endpoint });
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toMatch(/credentials/);
      expect(message).not.toContain('s3cret');
    }
  });
});

describe('systemScheduler', () => {
  it('never keeps the process alive, and cancels', () => {
    const spy = jest.spyOn(global, 'setTimeout');
    try {
      const fired = jest.fn();
      const cancel = systemScheduler.setTimeout(fired, 60_000);
      const timer = spy.mock.results[0]!.value as NodeJS.Timeout;
      expect(timer.hasRef()).toBe(false);
      cancel();
      expect(fired).not.toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
  });
});
