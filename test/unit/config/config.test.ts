import { loadConfig, processCount } from '../../../src/config/config';
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
    expect(config.roles).toEqual(['ingest', 'router', 'worker', 'audiences']);
    expect(config.ingest).toEqual({ concurrency: 16, queue: 1_000, queueTimeoutMs: 250 });
    expect(config.kafka.brokers).toBeUndefined();
    expect(config.kafka.fetchPartitionBytes).toBe(131_072);
    expect(config.routing).toEqual({
      dedupeWindowMs: 3_600_000,
      dedupeMaxEntries: 1_000_000,
      concurrency: 300,
      direct: true,
    });
    expect(config.topics).toEqual({ prefix: 'hookline', create: true, partitions: 6, replicationFactor: -1 });
  });

  it('turns circuit breakers on by default, tunable, and off on request', () => {
    expect(loadConfig({}).delivery.circuit).toEqual({
      minRequests: 10,
      failureRatio: 0.5,
      cooldownMs: 30_000,
    });
    expect(
      loadConfig({
        HOOKLINE_CIRCUIT_MIN_REQUESTS: '50',
        HOOKLINE_CIRCUIT_FAILURE_PERCENT: '80',
        HOOKLINE_CIRCUIT_COOLDOWN: '2m',
        HOOKLINE_CIRCUIT_AUTO_DISABLE_AFTER: '7d',
      }).delivery.circuit,
    ).toEqual({
      minRequests: 50,
      failureRatio: 0.8,
      cooldownMs: 120_000,
      autoDisableAfterMs: 7 * 86_400_000,
    });
    expect(loadConfig({ HOOKLINE_CIRCUIT_BREAKER: 'false' }).delivery.circuit).toBeUndefined();
    expect(() => loadConfig({ HOOKLINE_CIRCUIT_FAILURE_PERCENT: '0' })).toThrow(
      'HOOKLINE_CIRCUIT_FAILURE_PERCENT',
    );
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
    [{ HOOKLINE_KAFKA_LINGER: '5 ms' }, 'HOOKLINE_KAFKA_LINGER'],
    [{ HOOKLINE_KAFKA_FETCH_PARTITION_BYTES: '100' }, 'HOOKLINE_KAFKA_FETCH_PARTITION_BYTES'],
    [{ HOOKLINE_RETRY_SCHEDULE: '10s,1m,30s' }, 'HOOKLINE_RETRY_SCHEDULE'],
    [{ HOOKLINE_RETRY_SCHEDULE: '10s,often' }, 'HOOKLINE_RETRY_SCHEDULE'],
    [{ HOOKLINE_RETRY_CUTOFF: '4 hours' }, 'HOOKLINE_RETRY_CUTOFF'],
    [{ HOOKLINE_ALLOWED_NETWORKS: '127.0.0.0/8,localhost' }, 'HOOKLINE_ALLOWED_NETWORKS'],
    [{ HOOKLINE_ALLOWED_NETWORKS: '10.0.0.0/33' }, 'HOOKLINE_ALLOWED_NETWORKS'],
    [{ HOOKLINE_ADMIN_PORT: 'admin' }, 'HOOKLINE_ADMIN_PORT'],
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

  it('has no allowed networks by default', () => {
    const config = loadConfig({});
    expect(config.security).toEqual({ allowedNetworks: [] });
    expect(loadConfig({ HOOKLINE_ALLOWED_NETWORKS: '' }).security.allowedNetworks).toEqual([]);
  });

  it('reads allowed networks, normalised', () => {
    expect(
      loadConfig({ HOOKLINE_ALLOWED_NETWORKS: ' 127.0.0.0/8, 10.1.0.0/16,fd00::/8 ' }).security
        .allowedNetworks,
    ).toEqual(['127.0.0.0/8', '10.1.0.0/16', 'fd00::/8']);
  });

  it('serves the admin API on the main port unless HOOKLINE_ADMIN_PORT is set', () => {
    expect(loadConfig({}).adminHttp).toBeUndefined();
    expect(loadConfig({ HOOKLINE_HTTP_HOST: '127.0.0.1', HOOKLINE_ADMIN_PORT: '8081' }).adminHttp).toEqual({
      port: 8081,
      host: '127.0.0.1',
    });
    expect(loadConfig({ HOOKLINE_ADMIN_PORT: '0', HOOKLINE_ADMIN_HOST: '10.0.0.2' }).adminHttp).toEqual({
      port: 0,
      host: '10.0.0.2',
    });
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

describe('HOOKLINE_WORKERS', () => {
  it.each([
    [undefined, 4, 4],
    ['auto', 2, 2],
    ['auto', 0, 1],
    ['1', 8, 1],
    ['3', 2, 3],
  ])('%s on %i CPUs → %i processes', (value, cpus, expected) => {
    const config = loadConfig(value === undefined ? {} : { HOOKLINE_WORKERS: value });
    expect(processCount(config.processes, cpus)).toBe(expected);
  });

  it.each(['0', 'many', '-1', '1.5'])('refuses %s', (value) => {
    expect(() => loadConfig({ HOOKLINE_WORKERS: value })).toThrow(/HOOKLINE_WORKERS/);
  });
});
