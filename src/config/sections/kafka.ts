import { z } from 'zod';
import { envBool, envBrokers, envDurationMs, envEnum, envInt, envString, envUrl, envValues } from '../env';

/** The Kafka cluster, the schema registry, the topics and the Kafka clients' timings. */
export const kafkaEnv = {
  KAFKA_BROKERS: envBrokers()
    .optional()
    .meta({
      description:
        'Bootstrap brokers. Set together with `SCHEMA_REGISTRY_URL`. Required in production; unset, ' +
        '`npm start` runs a local single-node cluster.',
      shownDefault: 'required in production; `npm start`: a local cluster',
    }),
  KAFKA_CLIENT_ID: envString().default('hookline').describe('Client id of the Kafka clients.'),
  KAFKA_SSL: envBool().default(false).describe('TLS to the brokers.'),
  KAFKA_SASL_MECHANISM: envEnum(['plain', 'scram-sha-256', 'scram-sha-512']).optional().meta({
    description: 'SASL authentication to the brokers; needs `KAFKA_SASL_USERNAME` and `KAFKA_SASL_PASSWORD`.',
    shownDefault: 'none (no SASL)',
  }),
  KAFKA_SASL_USERNAME: envString().optional().describe('SASL user name (with `KAFKA_SASL_MECHANISM`).'),
  KAFKA_SASL_PASSWORD: envString().optional().describe('SASL password (with `KAFKA_SASL_MECHANISM`).'),
  SCHEMA_REGISTRY_URL: envUrl()
    .optional()
    .meta({
      description:
        'Base URL of a Confluent-compatible schema registry. Set together with `KAFKA_BROKERS`. ' +
        'Required in production; unset, `npm start` runs a local registry.',
      shownDefault: 'required in production; `npm start`: a local registry',
    }),
  SCHEMA_REGISTRY_USERNAME: envString().optional().describe('Basic auth user name for the registry.'),
  SCHEMA_REGISTRY_PASSWORD: envString().optional().describe('Basic auth password for the registry.'),
  HOOKLINE_TOPIC_PREFIX: envValues(
    z.preprocess(
      (v) => (v === '' ? undefined : v),
      z.string().regex(/^[A-Za-z0-9._-]{1,200}$/, 'expected letters, digits, ".", "_" or "-"'),
    ),
    { accepts: 'letters, digits, `.`, `_` and `-` (1 to 200)' },
  )
    .default('hookline')
    .describe('Topic names are `<prefix>.events`, `<prefix>.catalog`, …'),
  HOOKLINE_CREATE_TOPICS: envBool()
    .default(true)
    .describe(
      'Create missing topics at start (idempotent). Turn off where topics are provisioned elsewhere.',
    ),
  HOOKLINE_TOPIC_PARTITIONS: envInt({ min: 1, max: 10_000 })
    .default(6)
    .describe(
      'Partitions of the topics Hookline creates (the catalog and the dead-letter topics have 1): ' +
        'the unit of parallelism of each role.',
    ),
  HOOKLINE_TOPIC_REPLICATION_FACTOR: envInt({ min: -1, max: 32 })
    .default(-1)
    .describe(
      "Replication factor of the topics Hookline creates; `-1` = the broker's " +
        '`default.replication.factor`. From 3 up, topics are created with `min.insync.replicas=2` (an ' +
        "acks=all write then survives the loss of the broker that took it); below, the broker's default.",
    ),
  HOOKLINE_KAFKA_ACK_TIMEOUT: envDurationMs()
    .default(10_000)
    .describe(
      'How long a Kafka write of the tracking or admin API may take before the caller gets `503` ' +
        "(unavailable). The router's and the worker's writes wait as long as Kafka takes: given up, " +
        'they would be written twice.',
    ),
  HOOKLINE_KAFKA_LINGER: envDurationMs()
    .default(5)
    .describe(
      "How long a worker's hand-off writes (attempt records, delay and dead-letter topics) may wait " +
        "for others to share a produce request (Kafka's `linger.ms`); 16 KiB waiting, or any tracking " +
        'or routing write, send them at once. The receiver has the event by then: only the offset ' +
        'commit waits. A worker killed meanwhile has those deliveries repeated by the next owner of ' +
        'the partition. `0`: at once.',
    ),
  HOOKLINE_KAFKA_SESSION_TIMEOUT: envDurationMs()
    .default(30_000)
    .describe(
      'A consumer that stops heartbeating (crashed, SIGKILL) loses its partitions after this long; it ' +
        "heartbeats every third of it, at most every 3 s. At least the broker's " +
        '`group.min.session.timeout.ms` (6 s by default).',
    ),
  HOOKLINE_KAFKA_FETCH_PARTITION_BYTES: envInt({ min: 1_024, max: 64 * 1_048_576 })
    .default(131_072)
    .describe(
      "Most bytes the router's and the worker's consumers fetch per partition in one request (a fetch " +
        'holds at most 8× this). Fetched records wait in memory until handled, so this bounds memory ' +
        'while a backlog drains; a larger record is still fetched.',
    ),
};
