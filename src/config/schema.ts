import os from 'node:os';
import { z } from 'zod';
import { DEFAULT_RETRY_CUTOFF_MS, DEFAULT_RETRY_SCHEDULE_MS, scheduleProblem } from './retry';
import { parseNetworks } from '../security/address-policy';
import {
  envBool,
  envBrokers,
  envDurationMs,
  envInt,
  envSecretsKey,
  envString,
  envUrl,
  parseDurationMs,
} from './env';

export const ROLES = ['ingest', 'router', 'worker', 'audiences'] as const;
export type Role = (typeof ROLES)[number];

/**
 * Hookline's whole configuration, read from environment variables. Each key documents itself;
 * the README's configuration table mirrors this list.
 */
export const envSchema = z.object({
  // --- HTTP ---
  /** Port of the HTTP server (tracking API, admin API, health, metrics). */
  HOOKLINE_HTTP_PORT: envInt({ min: 0, max: 65_535 }).default(8080),
  /** Interface to bind. */
  HOOKLINE_HTTP_HOST: envString().default('0.0.0.0'),
  /**
   * Port of a separate HTTP server for the admin API (/api/v1/*). When set, the main port no
   * longer serves /api/v1/*. Unset: the admin API is on the main port.
   */
  HOOKLINE_ADMIN_PORT: envInt({ min: 0, max: 65_535 }).optional(),
  /** Interface the admin port binds (only with HOOKLINE_ADMIN_PORT). Default: HOOKLINE_HTTP_HOST. */
  HOOKLINE_ADMIN_HOST: envString().optional(),
  /**
   * Processes to run: `auto` = one per CPU (os.availableParallelism()), or a number. With more
   * than one, a primary forks that many children (node:cluster) sharing the HTTP port and the
   * consumer groups' partitions, restarts a crashed one and drains them all on SIGTERM.
   */
  HOOKLINE_WORKERS: z
    .preprocess(
      (v) => (v === '' || v === undefined ? undefined : v),
      z.union([
        z.literal('auto'),
        z
          .string()
          .regex(/^\d+$/, "expected 'auto' or a number of processes")
          .transform(Number)
          .pipe(z.number().int().min(1).max(256)),
      ]),
    )
    .default('auto'),
  /** Which roles this process runs; all by default. */
  HOOKLINE_ROLES: z
    .preprocess(
      (v) => (v === '' || v === undefined ? undefined : v),
      z.string().transform((value, ctx) => {
        const roles = value
          .split(',')
          .map((r) => r.trim())
          .filter(Boolean);
        const bad = roles.find((r) => !(ROLES as readonly string[]).includes(r));
        if (roles.length === 0 || bad !== undefined) {
          ctx.addIssue({
            code: 'custom',
            message: `expected a comma-separated subset of ${ROLES.join(',')}`,
          });
          return z.NEVER;
        }
        return [...new Set(roles)] as Role[];
      }),
    )
    .default([...ROLES]),
  /**
   * Tracking API requests handled at once per process (body read, normalised, waiting for Kafka).
   * More wait in the admission queue below; see README › Operations › Ingest under a burst.
   */
  HOOKLINE_INGEST_CONCURRENCY: envInt({ min: 1, max: 100_000 }).default(16),
  /** Tracking API requests that may wait for a slot; one more is answered 503 + Retry-After at once. */
  HOOKLINE_INGEST_QUEUE: envInt({ min: 0, max: 1_000_000 }).default(1_000),
  /**
   * Longest wait for a slot, counted from the request's arrival (so a busy event loop's delay counts);
   * a request still waiting then is answered 503 + Retry-After.
   */
  HOOKLINE_INGEST_QUEUE_TIMEOUT: envDurationMs().default(250),
  /** Bearer token for the admin API. Generated (and printed) by `npm start` when unset. */
  HOOKLINE_ADMIN_TOKEN: envString().optional(),
  /**
   * Key that seals destination secrets and static header values on the catalog topic (AES-256-GCM):
   * base64 of exactly 32 bytes (`openssl rand -base64 32`). Every process needs the same key.
   * Required by the production entry point; `npm start` generates one and keeps it in
   * ~/.cache/hookline when unset.
   */
  HOOKLINE_SECRETS_KEY: envSecretsKey().optional(),
  /**
   * During a key rotation: the key being replaced. Values sealed with it stay readable (never
   * written) until `hookline secrets reencrypt` has moved every destination to the current key.
   */
  HOOKLINE_SECRETS_KEY_PREVIOUS: envSecretsKey().optional(),
  HOOKLINE_LOG_LEVEL: z
    .preprocess(
      (v) => (v === '' ? undefined : v),
      z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    )
    .default('info'),

  // --- Kafka ---
  /** Comma-separated bootstrap brokers. Unset: `npm start` runs a local single-node cluster. */
  KAFKA_BROKERS: envBrokers().optional(),
  KAFKA_CLIENT_ID: envString().default('hookline'),
  KAFKA_SSL: envBool().default(false),
  KAFKA_SASL_MECHANISM: z
    .preprocess((v) => (v === '' ? undefined : v), z.enum(['plain', 'scram-sha-256', 'scram-sha-512']))
    .optional(),
  KAFKA_SASL_USERNAME: envString().optional(),
  KAFKA_SASL_PASSWORD: envString().optional(),
  /** Confluent-compatible schema registry base URL. */
  SCHEMA_REGISTRY_URL: envUrl().optional(),
  SCHEMA_REGISTRY_USERNAME: envString().optional(),
  SCHEMA_REGISTRY_PASSWORD: envString().optional(),
  /** Topic names are `<prefix>.events`, `<prefix>.catalog`, ... */
  HOOKLINE_TOPIC_PREFIX: z
    .preprocess(
      (v) => (v === '' ? undefined : v),
      z.string().regex(/^[A-Za-z0-9._-]{1,200}$/, 'expected letters, digits, ".", "_" or "-"'),
    )
    .default('hookline'),
  /** Create missing topics at start. Turn off where topics are provisioned elsewhere. */
  HOOKLINE_CREATE_TOPICS: envBool().default(true),
  HOOKLINE_TOPIC_PARTITIONS: envInt({ min: 1, max: 10_000 }).default(6),
  /** -1 = the broker's default.replication.factor. */
  HOOKLINE_TOPIC_REPLICATION_FACTOR: envInt({ min: -1, max: 32 }).default(-1),
  /**
   * How long a Kafka write of the tracking or admin API may take before the caller gets
   * "unavailable". The router's and the worker's writes wait for Kafka instead: their handlers
   * would be run again and write twice.
   */
  HOOKLINE_KAFKA_ACK_TIMEOUT: envDurationMs().default(10_000),
  /**
   * How long a worker's hand-off writes (attempt records, delay and dead-letter topics) may wait
   * for others to share a produce request (Kafka's linger.ms; 16 KiB waiting go at once, and so
   * does any tracking or routing write, taking them along). One request per delivery cost more
   * than the records. The receiver has the event by then: only the offset commit, and the next
   * event of the same user to the same destination, wait for it. A worker killed meanwhile has
   * those deliveries repeated by the partition's next owner (no attempt record says they were
   * made). 0: at once.
   */
  HOOKLINE_KAFKA_LINGER: envDurationMs().default(5),
  /**
   * A consumer that stops heartbeating (crashed, SIGKILL) loses its partitions after this long; its
   * group heartbeats every third of it, at most 3 s (src/kafka/group-timings.ts). At least the
   * broker's group.min.session.timeout.ms (6 s by default).
   */
  HOOKLINE_KAFKA_SESSION_TIMEOUT: envDurationMs().default(30_000),
  /**
   * Most bytes the router's and the worker's consumers fetch per partition in one request (kafkajs
   * maxBytesPerPartition; a fetch holds at most 8× this). Fetched records wait in memory until
   * handled, so this bounds memory while a backlog drains; a record larger than it is still fetched.
   */
  HOOKLINE_KAFKA_FETCH_PARTITION_BYTES: envInt({ min: 1_024, max: 64 * 1_048_576 }).default(131_072),

  // --- Routing and delivery ---
  /** A client's retry of the same messageId is routed once within this window (per process). */
  HOOKLINE_DEDUPE_WINDOW: envDurationMs().default(3_600_000),
  HOOKLINE_DEDUPE_MAX_ENTRIES: envInt({ min: 0, max: 100_000_000 }).default(1_000_000),
  /**
   * Events one router process handles at once (decoded, waiting for their tasks to be on Kafka).
   * Bounds the router's memory and its share of the event loop while it works through a backlog.
   */
  HOOKLINE_ROUTER_CONCURRENCY: envInt({ min: 1, max: 100_000 }).default(300),
  /**
   * A process that runs both the router and the worker makes first attempts itself, straight from
   * `hookline.events` (one write and one read less per task); false: every task goes through
   * `hookline.deliveries`, as from a router-only process.
   */
  HOOKLINE_DIRECT_DELIVERY: envBool().default(true),
  /** A receiver must answer within this time (the spec's 5 seconds). */
  HOOKLINE_DELIVERY_TIMEOUT: envDurationMs().default(5_000),
  /**
   * Delivery tasks handled at once by one worker process. Those of first attempts (the worker's
   * and the router's consumers) only as many as keep their requests going (delivery/admission.ts,
   * heldBound), at most this.
   */
  HOOKLINE_WORKER_CONCURRENCY: envInt({ min: 1, max: 100_000 }).default(1_000),
  /** Concurrent requests to one destination from one worker process. */
  HOOKLINE_DESTINATION_CONCURRENCY: envInt({ min: 1, max: 10_000 }).default(50),
  /** Tasks waiting for one destination before further ones are deferred to the first delay topic. */
  HOOKLINE_DESTINATION_QUEUE: envInt({ min: 0, max: 1_000_000 }).default(500),
  /** Circuit breakers per destination URL (delivery/circuit): on by default. */
  HOOKLINE_CIRCUIT_BREAKER: envBool().default(true),
  /** Requests in the 30 s window before a URL's circuit may open. */
  HOOKLINE_CIRCUIT_MIN_REQUESTS: envInt({ min: 1, max: 1_000_000 }).default(10),
  /** Share of failed requests in the window that opens it, in percent. */
  HOOKLINE_CIRCUIT_FAILURE_PERCENT: envInt({ min: 1, max: 100 }).default(50),
  /** First cool-down of an open circuit; it doubles with each failed probe, up to 20×. */
  HOOKLINE_CIRCUIT_COOLDOWN: envDurationMs().default(30_000),
  /**
   * Disables a webhook URL whose circuit has stayed open (probes failing) this long, e.g. `7d`,
   * as Svix and Convoy offer. Unset (the default): never.
   */
  HOOKLINE_CIRCUIT_AUTO_DISABLE_AFTER: envDurationMs().optional(),
  /** Delays between attempts, comma separated; the last repeats until the cutoff. */
  HOOKLINE_RETRY_SCHEDULE: z
    .preprocess(
      (v) => (v === '' ? undefined : v),
      z.string().transform((value, ctx) => {
        const parts = value.split(',').map((p) => parseDurationMs(p.trim()));
        const problem = parts.some((p) => p === undefined)
          ? `expected durations such as 10s,1m,5m; got '${value}'`
          : scheduleProblem(parts as number[]);
        if (problem) {
          ctx.addIssue({ code: 'custom', message: problem });
          return z.NEVER;
        }
        return parts as number[];
      }),
    )
    .default([...DEFAULT_RETRY_SCHEDULE_MS]),
  /** No attempt is scheduled later than this after the first one; the task is dead-lettered instead. */
  HOOKLINE_RETRY_CUTOFF: envDurationMs().default(DEFAULT_RETRY_CUTOFF_MS),
  /**
   * After a destination's standardWebhooksSecret changes, requests are signed with the new and the
   * previous secret for this long, then with the new one only.
   */
  HOOKLINE_SECRET_ROTATION_OVERLAP: envDurationMs().default(86_400_000),

  /**
   * SSRF guard exceptions: comma-separated CIDRs (e.g. `127.0.0.0/8,10.1.0.0/16`) that webhook
   * URLs may reach although they are loopback, private, link-local, ... Empty or unset = none.
   */
  HOOKLINE_ALLOWED_NETWORKS: z.preprocess(
    (v) => (v === undefined ? '' : v),
    z.string().transform((value, ctx) => {
      const parsed = parseNetworks(value);
      if ('problem' in parsed) {
        ctx.addIssue({ code: 'custom', message: parsed.problem });
        return z.NEVER;
      }
      return parsed.networks;
    }),
  ),

  // --- Audiences ---
  /**
   * How often the audience processor re-evaluates time windows (`withinDays`, `withinHours`) and
   * announces the users who left or joined because time passed.
   */
  HOOKLINE_AUDIENCE_SYNC_INTERVAL: envDurationMs().default(600_000),
  /**
   * How long the audience processor applies events before it evaluates the users they touched and
   * commits (state, identifies, offsets in one transaction per partition; sooner once 10,000 users
   * of a partition wait). A user is announced at most once per computation per interval, with the
   * latest value: a count going 3 → 4 → 5 announces 5, a join and a leave within it send nothing.
   * Longer: fewer identifies for busy users (each is delivered like an event); shorter: less
   * latency. 30 s is Kafka Streams' default commit interval, over which its record caches coalesce
   * per-key updates the same way. `0`: after every fetched batch.
   */
  HOOKLINE_AUDIENCE_EVALUATE_INTERVAL: envDurationMs().default(30_000),
  /**
   * The time bucket of window counts: an event leaves a window up to this late. Smaller buckets
   * cost memory per user (one count per bucket within the longest window).
   */
  HOOKLINE_AUDIENCE_BUCKET: envDurationMs().default(3_600_000),
  /**
   * Directory of the audience processor's stores of user state (one LMDB file per owned
   * partition). Each is unlinked as soon as it is opened: nothing is left after the process exits,
   * however it exits, and a partition's store is rebuilt from `<prefix>.audience-state` whenever
   * the partition is assigned. Needs about the state topic's size of the owned partitions.
   */
  HOOKLINE_AUDIENCE_STATE_DIR: envString().default(os.tmpdir()),
  /**
   * User states the audience processor holds decoded in memory (shared evenly by the owned
   * partitions); the others are read from disk when their users are active. About 1 KB (an hour
   * of activity) to 5.5 KB (a busy day) each, plus up to 1,000 changed states per partition
   * waiting to be written.
   */
  HOOKLINE_AUDIENCE_CACHE_USERS: envInt({ min: 0, max: 100_000_000 }).default(50_000),

  // --- Operations ---
  /**
   * The attempt index (GET .../attempts). `true`: this process keeps all of it, reading every
   * record of `<prefix>.attempts`. `shared`: the processes with `shared` split the topic's
   * partitions between them (group `<prefix>.attempt-index`), each reading its share and passing
   * queries for the others to the process keeping them, at its HOOKLINE_ADVERTISED_URL. `false`:
   * none here (processes no attempt query reaches); the route answers 503 attempt_index_off.
   */
  HOOKLINE_ATTEMPT_INDEX: z
    .preprocess(
      (v) => (v === '' ? undefined : v),
      z.enum(['true', 'false', 'shared'], { message: 'expected true, false or shared' }),
    )
    .default('true'),
  /**
   * Where the other Hookline processes reach this one's admin API, for HOOKLINE_ATTEMPT_INDEX=shared
   * (e.g. http://10.1.2.3:8080; the chart sets the pod's IP). Default: http://<HOOKLINE_HTTP_HOST,
   * or the host name when it listens on every address>:<the admin API's port>.
   */
  HOOKLINE_ADVERTISED_URL: envUrl().optional(),
  /**
   * The host (name or IP address, IPv6 unbracketed) that the default HOOKLINE_ADVERTISED_URL
   * names instead of the listening host: the chart sets the pod's IP, which may be IPv6.
   */
  HOOKLINE_ADVERTISED_HOST: envString().optional(),
  /** The attempt index (GET .../attempts) starts this far back in `<prefix>.attempts`. */
  HOOKLINE_ATTEMPT_INDEX_WINDOW: envDurationMs().default(86_400_000),
  /** Attempts kept in memory per destination; older ones fall out. */
  HOOKLINE_ATTEMPT_INDEX_PER_DESTINATION: envInt({ min: 1, max: 100_000 }).default(1_000),
  /**
   * Memory all destinations' kept attempts may take (about 0.35 KB each): 64 MiB holds about
   * 190,000. Over it, the destinations keeping the most attempts lose their oldest first.
   */
  HOOKLINE_ATTEMPT_INDEX_MAX_BYTES: envInt({ min: 1_048_576, max: 2 ** 40 }).default(67_108_864),
  /**
   * Directory of the dead-letter index's files (about 48 bytes plus the task's JSON per dead
   * letter). They are unlinked as soon as they are opened: nothing is left after the process
   * exits, however it exits, and the index is rebuilt from `<prefix>.dlq` at every start.
   */
  HOOKLINE_DLQ_INDEX_DIR: envString().default(os.tmpdir()),
  /**
   * Dead letters the index keeps decoded in memory (pages and gets read recently); everything
   * else is on disk. Its memory does not grow with the dead-letter topic.
   */
  HOOKLINE_DLQ_CACHE_ENTRIES: envInt({ min: 0, max: 1_000_000 }).default(1_000),
});
