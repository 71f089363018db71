import { loadConfig } from '../../../src/config/config';
import { parseDurationMs } from '../../../src/config/env';
import { ConfigError } from '../../../src/core/errors';
import { keyIdOf } from '../../../src/security/secrets';

const KEY = Buffer.alloc(32, 7).toString('base64');
const PREVIOUS_KEY = Buffer.alloc(32, 8).toString('base64');

describe('loadConfig', () => {
  it('builds the secrets keyring from HOOKLINE_SECRETS_KEY(_PREVIOUS); none when unset', () => {
    expect(loadConfig({}).secrets.keyring).toBeUndefined();
    expect(loadConfig({}).signing.rotationOverlapMs).toBe(86_400_000);
    const config = loadConfig({
      HOOKLINE_SECRETS_KEY: KEY,
      HOOKLINE_SECRETS_KEY_PREVIOUS: PREVIOUS_KEY,
      HOOKLINE_SECRET_ROTATION_OVERLAP: '2h',
    });
    expect(config.secrets.keyring?.keyIds).toEqual([
      keyIdOf(Buffer.from(KEY, 'base64')),
      keyIdOf(Buffer.from(PREVIOUS_KEY, 'base64')),
    ]);
    expect(config.signing.rotationOverlapMs).toBe(7_200_000);
    expect(JSON.stringify(config)).not.toContain(KEY);
  });

  it('uses documented defaults for an empty environment', () => {
    const config = loadConfig({});
    expect(config.http).toEqual({ port: 8080, host: '0.0.0.0' });
    expect(config.roles).toEqual(['ingest', 'router', 'worker']);
    expect(config.kafka.brokers).toBeUndefined();
    expect(config.topics).toEqual({ prefix: 'hookline', create: true, partitions: 6, replicationFactor: -1 });
  });

  it('reads a full cluster configuration', () => {
    const config = loadConfig({
      HOOKLINE_HTTP_PORT: '9000',
      KAFKA_BROKERS: 'kafka-0.kafka:9092, kafka-1.kafka:9092',
      SCHEMA_REGISTRY_URL: 'http://registry:8081',
      HOOKLINE_ROLES: 'worker,router',
      HOOKLINE_CREATE_TOPICS: 'false',
    });
    expect(config.http.port).toBe(9000);
    expect(config.kafka.brokers).toEqual(['kafka-0.kafka:9092', 'kafka-1.kafka:9092']);
    expect(config.roles).toEqual(['worker', 'router']);
    expect(config.topics.create).toBe(false);
  });

  it.each([
    [{ HOOKLINE_HTTP_PORT: 'abc' }, 'HOOKLINE_HTTP_PORT'],
    [{ HOOKLINE_HTTP_PORT: '70000' }, 'HOOKLINE_HTTP_PORT'],
    [{ KAFKA_BROKERS: 'not a host', SCHEMA_REGISTRY_URL: 'http://r:8081' }, 'KAFKA_BROKERS'],
    [{ KAFKA_BROKERS: 'k:9092' }, 'SCHEMA_REGISTRY_URL'],
    [{ KAFKA_BROKERS: 'k:9092', SCHEMA_REGISTRY_URL: 'ftp://r' }, 'SCHEMA_REGISTRY_URL'],
    [{ HOOKLINE_ROLES: 'ingest,mailer' }, 'HOOKLINE_ROLES'],
    [{ HOOKLINE_LOG_LEVEL: 'loud' }, 'HOOKLINE_LOG_LEVEL'],
    [{ HOOKLINE_KAFKA_ACK_TIMEOUT: 'soon' }, 'HOOKLINE_KAFKA_ACK_TIMEOUT'],
    [{ HOOKLINE_RETRY_SCHEDULE: '10s,1m,30s' }, 'HOOKLINE_RETRY_SCHEDULE'],
    [{ HOOKLINE_RETRY_SCHEDULE: '10s,often' }, 'HOOKLINE_RETRY_SCHEDULE'],
    [{ HOOKLINE_RETRY_CUTOFF: '4 hours' }, 'HOOKLINE_RETRY_CUTOFF'],
    [{ HOOKLINE_SECRETS_KEY: 'c2hvcnQ=' }, 'HOOKLINE_SECRETS_KEY'],
    [{ HOOKLINE_SECRETS_KEY: 'not base64 at all!' }, 'HOOKLINE_SECRETS_KEY'],
    [
      { HOOKLINE_SECRETS_KEY: KEY, HOOKLINE_SECRETS_KEY_PREVIOUS: 'c2hvcnQ=' },
      'HOOKLINE_SECRETS_KEY_PREVIOUS',
    ],
    [{ HOOKLINE_SECRETS_KEY_PREVIOUS: KEY }, 'HOOKLINE_SECRETS_KEY'],
    [{ HOOKLINE_SECRET_ROTATION_OVERLAP: 'a day' }, 'HOOKLINE_SECRET_ROTATION_OVERLAP'],
  ])('rejects %j naming %s', (env, key) => {
    let error: unknown;
    try {
      loadConfig(env);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).key).toBe(key);
    expect((error as ConfigError).message.startsWith(`${key}: `)).toBe(true);
    expect((error as ConfigError).message).not.toContain('\n');
  });

  it('reads a scaled-down retry policy', () => {
    expect(
      loadConfig({ HOOKLINE_RETRY_SCHEDULE: '200ms, 500ms,1s', HOOKLINE_RETRY_CUTOFF: '3s' }).retry,
    ).toEqual({
      scheduleMs: [200, 500, 1_000],
      cutoffMs: 3_000,
    });
    expect(loadConfig({}).retry).toEqual({
      scheduleMs: [10_000, 60_000, 300_000, 1_200_000, 3_600_000],
      cutoffMs: 14_400_000,
    });
  });

  it('never echoes the value of a secret', () => {
    expect(() => loadConfig({ KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_PASSWORD: 'hunter2' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('hunter2') }),
    );
  });
});

describe('parseDurationMs', () => {
  it.each([
    ['250ms', 250],
    ['10s', 10_000],
    ['1m', 60_000],
    ['4h', 14_400_000],
    ['1.5s', 1_500],
    ['42', 42],
    ['', undefined],
    ['10 parsecs', undefined],
  ])('%s → %s', (text, ms) => expect(parseDurationMs(text)).toBe(ms));
});
