import type { z } from 'zod';
import { ConfigError } from '../core/errors';
import { SecretKeyring } from '../security/secrets';
import { envSchema, type Role } from './schema';

export { ROLES, type Role } from './schema';

type RawConfig = z.output<typeof envSchema>;

export interface Config {
  http: { port: number; host: string };
  /** The admin API's own server; undefined: the admin API is on the main port. */
  adminHttp: { port: number; host: string } | undefined;
  roles: Role[];
  /** HOOKLINE_WORKERS: processes to run (`auto`: one per CPU); see processCount. */
  processes: 'auto' | number;
  /** The tracking API's admission queue (ingest/admission.ts). */
  ingest: { concurrency: number; queue: number; queueTimeoutMs: number };
  adminToken: string | undefined;
  /**
   * The keys sealing secrets on the catalog topic; undefined when HOOKLINE_SECRETS_KEY is unset
   * (the entry point then generates a local key or refuses to start).
   */
  secrets: { keyring: SecretKeyring | undefined };
  logLevel: RawConfig['HOOKLINE_LOG_LEVEL'];
  kafka: {
    brokers: string[] | undefined;
    clientId: string;
    ssl: boolean;
    sasl:
      | { mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512'; username: string; password: string }
      | undefined;
    ackTimeoutMs: number;
    /** HOOKLINE_KAFKA_LINGER: how long a hand-off write may wait for company (BatchingProducer.lingering). */
    lingerMs: number;
    sessionTimeoutMs: number;
    fetchPartitionBytes: number;
  };
  registry: { url: string | undefined; username: string | undefined; password: string | undefined };
  topics: { prefix: string; create: boolean; partitions: number; replicationFactor: number };
  routing: { dedupeWindowMs: number; dedupeMaxEntries: number; concurrency: number; direct: boolean };
  delivery: {
    timeoutMs: number;
    workerConcurrency: number;
    destinationConcurrency: number;
    destinationQueue: number;
    /** Undefined: circuit breakers off. */
    circuit:
      | { minRequests: number; failureRatio: number; cooldownMs: number; autoDisableAfterMs?: number }
      | undefined;
  };
  retry: { scheduleMs: number[]; cutoffMs: number };
  security: { allowedNetworks: string[] };
  /** Standard Webhooks secret rotation: how long the previous secret still signs. */
  signing: { rotationOverlapMs: number };
  operations: {
    /** HOOKLINE_ATTEMPT_INDEX: all of it here, none, or a share of it. */
    attemptIndex: 'true' | 'false' | 'shared';
    /** HOOKLINE_ADVERTISED_URL; compose fills in the default once the ports are bound. */
    advertisedUrl: string | undefined;
    /** HOOKLINE_ADVERTISED_HOST: the default URL's host, in place of the listening host. */
    advertisedHost: string | undefined;
    attemptIndexWindowMs: number;
    attemptsPerDestination: number;
    attemptIndexMaxBytes: number;
    dlqIndexDir: string;
    dlqCacheEntries: number;
  };
  audiences: {
    syncIntervalMs: number;
    evaluateIntervalMs: number;
    bucketMs: number;
    stateDir: string;
    cacheUsers: number;
  };
}

/**
 * Parses and validates the environment. Throws a ConfigError naming the first bad key; the
 * message never includes the value of a secret.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const result = envSchema.safeParse(env);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const key = String(issue.path[0] ?? 'config');
    throw new ConfigError(key, issue.message);
  }
  const c = result.data;
  if ((c.KAFKA_BROKERS === undefined) !== (c.SCHEMA_REGISTRY_URL === undefined)) {
    const missing = c.KAFKA_BROKERS === undefined ? 'KAFKA_BROKERS' : 'SCHEMA_REGISTRY_URL';
    throw new ConfigError(missing, 'set KAFKA_BROKERS and SCHEMA_REGISTRY_URL together, or neither');
  }
  if (c.KAFKA_SASL_MECHANISM && (!c.KAFKA_SASL_USERNAME || !c.KAFKA_SASL_PASSWORD)) {
    throw new ConfigError(
      'KAFKA_SASL_USERNAME',
      'KAFKA_SASL_MECHANISM needs KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD',
    );
  }
  if (c.HOOKLINE_SECRETS_KEY_PREVIOUS && !c.HOOKLINE_SECRETS_KEY) {
    throw new ConfigError(
      'HOOKLINE_SECRETS_KEY',
      'HOOKLINE_SECRETS_KEY_PREVIOUS needs HOOKLINE_SECRETS_KEY (the new key) beside it',
    );
  }
  return {
    http: { port: c.HOOKLINE_HTTP_PORT, host: c.HOOKLINE_HTTP_HOST },
    adminHttp:
      c.HOOKLINE_ADMIN_PORT === undefined
        ? undefined
        : { port: c.HOOKLINE_ADMIN_PORT, host: c.HOOKLINE_ADMIN_HOST ?? c.HOOKLINE_HTTP_HOST },
    roles: c.HOOKLINE_ROLES,
    processes: c.HOOKLINE_WORKERS,
    ingest: {
      concurrency: c.HOOKLINE_INGEST_CONCURRENCY,
      queue: c.HOOKLINE_INGEST_QUEUE,
      queueTimeoutMs: c.HOOKLINE_INGEST_QUEUE_TIMEOUT,
    },
    adminToken: c.HOOKLINE_ADMIN_TOKEN,
    secrets: {
      keyring: c.HOOKLINE_SECRETS_KEY
        ? new SecretKeyring({ current: c.HOOKLINE_SECRETS_KEY, previous: c.HOOKLINE_SECRETS_KEY_PREVIOUS })
        : undefined,
    },
    logLevel: c.HOOKLINE_LOG_LEVEL,
    kafka: {
      brokers: c.KAFKA_BROKERS,
      clientId: c.KAFKA_CLIENT_ID,
      ssl: c.KAFKA_SSL,
      sasl: c.KAFKA_SASL_MECHANISM
        ? {
            mechanism: c.KAFKA_SASL_MECHANISM,
            username: c.KAFKA_SASL_USERNAME!,
            password: c.KAFKA_SASL_PASSWORD!,
          }
        : undefined,
      ackTimeoutMs: c.HOOKLINE_KAFKA_ACK_TIMEOUT,
      lingerMs: c.HOOKLINE_KAFKA_LINGER,
      sessionTimeoutMs: c.HOOKLINE_KAFKA_SESSION_TIMEOUT,
      fetchPartitionBytes: c.HOOKLINE_KAFKA_FETCH_PARTITION_BYTES,
    },
    registry: {
      url: c.SCHEMA_REGISTRY_URL,
      username: c.SCHEMA_REGISTRY_USERNAME,
      password: c.SCHEMA_REGISTRY_PASSWORD,
    },
    topics: {
      prefix: c.HOOKLINE_TOPIC_PREFIX,
      create: c.HOOKLINE_CREATE_TOPICS,
      partitions: c.HOOKLINE_TOPIC_PARTITIONS,
      replicationFactor: c.HOOKLINE_TOPIC_REPLICATION_FACTOR,
    },
    routing: {
      dedupeWindowMs: c.HOOKLINE_DEDUPE_WINDOW,
      dedupeMaxEntries: c.HOOKLINE_DEDUPE_MAX_ENTRIES,
      concurrency: c.HOOKLINE_ROUTER_CONCURRENCY,
      direct: c.HOOKLINE_DIRECT_DELIVERY,
    },
    delivery: {
      timeoutMs: c.HOOKLINE_DELIVERY_TIMEOUT,
      workerConcurrency: c.HOOKLINE_WORKER_CONCURRENCY,
      destinationConcurrency: c.HOOKLINE_DESTINATION_CONCURRENCY,
      destinationQueue: c.HOOKLINE_DESTINATION_QUEUE,
      circuit: c.HOOKLINE_CIRCUIT_BREAKER
        ? {
            minRequests: c.HOOKLINE_CIRCUIT_MIN_REQUESTS,
            failureRatio: c.HOOKLINE_CIRCUIT_FAILURE_PERCENT / 100,
            cooldownMs: c.HOOKLINE_CIRCUIT_COOLDOWN,
            ...(c.HOOKLINE_CIRCUIT_AUTO_DISABLE_AFTER !== undefined && {
              autoDisableAfterMs: c.HOOKLINE_CIRCUIT_AUTO_DISABLE_AFTER,
            }),
          }
        : undefined,
    },
    retry: { scheduleMs: c.HOOKLINE_RETRY_SCHEDULE, cutoffMs: c.HOOKLINE_RETRY_CUTOFF },
    security: { allowedNetworks: c.HOOKLINE_ALLOWED_NETWORKS },
    signing: { rotationOverlapMs: c.HOOKLINE_SECRET_ROTATION_OVERLAP },
    operations: {
      attemptIndex: c.HOOKLINE_ATTEMPT_INDEX,
      advertisedUrl: c.HOOKLINE_ADVERTISED_URL,
      advertisedHost: c.HOOKLINE_ADVERTISED_HOST,
      attemptIndexWindowMs: c.HOOKLINE_ATTEMPT_INDEX_WINDOW,
      attemptsPerDestination: c.HOOKLINE_ATTEMPT_INDEX_PER_DESTINATION,
      attemptIndexMaxBytes: c.HOOKLINE_ATTEMPT_INDEX_MAX_BYTES,
      dlqIndexDir: c.HOOKLINE_DLQ_INDEX_DIR,
      dlqCacheEntries: c.HOOKLINE_DLQ_CACHE_ENTRIES,
    },
    audiences: {
      syncIntervalMs: c.HOOKLINE_AUDIENCE_SYNC_INTERVAL,
      evaluateIntervalMs: c.HOOKLINE_AUDIENCE_EVALUATE_INTERVAL,
      bucketMs: c.HOOKLINE_AUDIENCE_BUCKET,
      stateDir: c.HOOKLINE_AUDIENCE_STATE_DIR,
      cacheUsers: c.HOOKLINE_AUDIENCE_CACHE_USERS,
    },
  };
}

/** How many processes HOOKLINE_WORKERS asks for on a machine with `cpus` CPUs (at least 1). */
export function processCount(setting: Config['processes'], cpus: number): number {
  return setting === 'auto' ? Math.max(1, cpus) : setting;
}
