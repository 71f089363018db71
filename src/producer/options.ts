import pino from 'pino';
import { systemClock, type Clock } from '../core/clock';
import { loadConfig, type Config } from '../config/config';
import { ConfigError } from '../core/errors';
import { createLogger, silentLogger, type Logger } from '../observability/logger';
import { systemScheduler, type Scheduler } from './scheduler';

/** Defaults, as the Go client library spec has them. */
export const DEFAULT_FLUSH_AT = 20;
export const DEFAULT_FLUSH_AFTER_MS = 5_000;
/** ≈ 500 batches of 20; at most ~320 MB if every call were 32 KB, typically a few MB. */
export const DEFAULT_MAX_QUEUED_MESSAGES = 10_000;
/** How long `connect` may take to read the catalog and find the write key's source. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
/**
 * How long `close()` may take to deliver what is queued, retries included: within a container's
 * usual 30 s shutdown grace, and as long as kafkajs's own request timeout.
 */
export const DEFAULT_CLOSE_TIMEOUT_MS = 30_000;
/** Transport 'http': how long one batch request may take. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

/** What `onError` is told besides the error. */
export interface ErrorContext {
  /**
   * The calls are kept and will be sent (again): a retriable failure, or a batch Kafka has not
   * acknowledged in time and is still retrying. False: they are dropped (or, for
   * EventsRejectedError, refused by the tracking API).
   */
  willRetry: boolean;
  /** How many calls the error is about. */
  count: number;
  /** Their messageIds (those the API named, for EventsRejectedError). */
  messageIds: string[];
}

/** Options every transport takes. */
export interface CommonOptions {
  /** Flush every N calls; 1 sends each call at once. Default 20. */
  flushAt?: number;
  /** Flush when this long has passed since the last flush. Default 5,000 ms. */
  flushAfterMs?: number;
  /** Calls held in memory (queued or in flight) before calls throw QueueFullError. Default 10,000. */
  maxQueuedMessages?: number;
  /** Longest `close()` takes to deliver what is queued, retries included. Default 30,000 ms. */
  closeTimeoutMs?: number;
  /** A pino logger. Default: silent, or debug lines on stderr when DEBUG names `analytics`. */
  logger?: Logger;
  /** Time source. Default Date.now. */
  clock?: Clock;
  /** Timer source of the flush timer. Default Node's setTimeout, unref'd. */
  scheduler?: Scheduler;
  /** Hears background failures: batches that failed (retried or dropped), events the API refused. */
  onError?: (err: Error, context: ErrorContext) => void;
  /** Where defaults (KAFKA_BROKERS, DEBUG, ...) are read from. Default process.env. */
  env?: NodeJS.ProcessEnv;
}

/** Straight to Kafka (the default): Avro through the schema registry, as the tracking API writes. */
export interface KafkaTransportOptions extends CommonOptions {
  transport?: 'kafka';
  /** Bootstrap brokers. Default KAFKA_BROKERS. */
  brokers?: readonly string[];
  /** Schema registry URL (and credentials). Default SCHEMA_REGISTRY_URL (_USERNAME, _PASSWORD). */
  registry?: string | { url: string; username?: string; password?: string };
  /** Topic prefix of the Hookline installation. Default HOOKLINE_TOPIC_PREFIX, else `hookline`. */
  topicPrefix?: string;
  /** Default KAFKA_CLIENT_ID, else `hookline-producer`. */
  clientId?: string;
  /** Default KAFKA_SSL. */
  ssl?: boolean;
  /** Default KAFKA_SASL_MECHANISM, KAFKA_SASL_USERNAME, KAFKA_SASL_PASSWORD. */
  sasl?: NonNullable<Config['kafka']['sasl']>;
  /**
   * How long a batch may go unacknowledged before flush() and onError hear so; the batch stays in
   * flight (never sent twice) until Kafka answers. Default HOOKLINE_KAFKA_ACK_TIMEOUT, else 10 s.
   */
  ackTimeoutMs?: number;
  /** How long `connect` may take. Default 30 s. */
  connectTimeoutMs?: number;
}

/** Through a Hookline tracking API, for services without Kafka access. */
export interface HttpTransportOptions extends CommonOptions {
  transport: 'http';
  /** Base URL of the tracking API; batches go to `<endpoint>/v1/batch`. */
  endpoint: string;
  /** Default 10 s. */
  requestTimeoutMs?: number;
}

export type AnalyticsOptions = KafkaTransportOptions | HttpTransportOptions;

export interface ResolvedCommon {
  flushAt: number;
  flushAfterMs: number;
  maxQueuedMessages: number;
  closeTimeoutMs: number;
  logger: Logger;
  clock: Clock;
  scheduler: Scheduler;
  onError: (err: Error, context: ErrorContext) => void;
}

export function resolveCommon(options: CommonOptions): ResolvedCommon {
  const env = options.env ?? process.env;
  const flushAt = options.flushAt ?? DEFAULT_FLUSH_AT;
  const flushAfterMs = options.flushAfterMs ?? DEFAULT_FLUSH_AFTER_MS;
  const maxQueuedMessages = options.maxQueuedMessages ?? DEFAULT_MAX_QUEUED_MESSAGES;
  requireInteger('flushAt', flushAt, 1);
  requireTimerMs('flushAfterMs', flushAfterMs);
  requireInteger('maxQueuedMessages', maxQueuedMessages, 1);
  const closeTimeoutMs = options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
  requireTimerMs('closeTimeoutMs', closeTimeoutMs);
  const logger = options.logger ?? defaultLogger(env.DEBUG);
  return {
    flushAt,
    flushAfterMs,
    maxQueuedMessages,
    closeTimeoutMs,
    logger: logger.child({ library: 'hookline/producer' }),
    clock: options.clock ?? systemClock,
    scheduler: options.scheduler ?? systemScheduler,
    onError: options.onError ?? (() => {}),
  };
}

export interface KafkaConnection {
  brokers: string[];
  clientId: string;
  ssl: boolean;
  sasl: Config['kafka']['sasl'];
  registry: Config['registry'] & { url: string };
  topicPrefix: string;
  ackTimeoutMs: number;
  connectTimeoutMs: number;
}

/**
 * Where Kafka is. Options win over the environment; both go through the service's own config
 * schema (`loadConfig`), so the library reads the same variables the same way the service does.
 * Only the variables below are read, so unrelated service settings cannot fail the library.
 */
export function resolveKafkaConnection(options: KafkaTransportOptions): KafkaConnection {
  const env = options.env ?? process.env;
  const registry = typeof options.registry === 'string' ? { url: options.registry } : options.registry;
  const picked: Record<string, string | undefined> = {
    KAFKA_BROKERS: options.brokers?.join(',') ?? env.KAFKA_BROKERS,
    KAFKA_CLIENT_ID: options.clientId ?? env.KAFKA_CLIENT_ID ?? 'hookline-producer',
    KAFKA_SSL: options.ssl === undefined ? env.KAFKA_SSL : String(options.ssl),
    KAFKA_SASL_MECHANISM: options.sasl?.mechanism ?? env.KAFKA_SASL_MECHANISM,
    KAFKA_SASL_USERNAME: options.sasl?.username ?? env.KAFKA_SASL_USERNAME,
    KAFKA_SASL_PASSWORD: options.sasl?.password ?? env.KAFKA_SASL_PASSWORD,
    SCHEMA_REGISTRY_URL: registry?.url ?? env.SCHEMA_REGISTRY_URL,
    SCHEMA_REGISTRY_USERNAME: registry ? registry.username : env.SCHEMA_REGISTRY_USERNAME,
    SCHEMA_REGISTRY_PASSWORD: registry ? registry.password : env.SCHEMA_REGISTRY_PASSWORD,
    HOOKLINE_TOPIC_PREFIX: options.topicPrefix ?? env.HOOKLINE_TOPIC_PREFIX,
    HOOKLINE_KAFKA_ACK_TIMEOUT: env.HOOKLINE_KAFKA_ACK_TIMEOUT,
  };
  if (!picked.KAFKA_BROKERS)
    throw new ConfigError('KAFKA_BROKERS', 'pass the brokers option or set KAFKA_BROKERS');
  if (!picked.SCHEMA_REGISTRY_URL) {
    throw new ConfigError('SCHEMA_REGISTRY_URL', 'pass the registry option or set SCHEMA_REGISTRY_URL');
  }
  const config = loadConfig(picked);
  const ackTimeoutMs = options.ackTimeoutMs ?? config.kafka.ackTimeoutMs;
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  requireTimerMs('ackTimeoutMs', ackTimeoutMs);
  requireTimerMs('connectTimeoutMs', connectTimeoutMs);
  return {
    brokers: config.kafka.brokers!,
    clientId: config.kafka.clientId,
    ssl: config.kafka.ssl,
    sasl: config.kafka.sasl,
    registry: { ...config.registry, url: config.registry.url! },
    topicPrefix: config.topics.prefix,
    ackTimeoutMs,
    connectTimeoutMs,
  };
}

export function resolveHttpEndpoint(options: HttpTransportOptions): {
  batchUrl: string;
  requestTimeoutMs: number;
} {
  let url: URL;
  try {
    url = new URL(options.endpoint);
  } catch {
    throw new ConfigError('endpoint', 'expected the http(s) base URL of a Hookline tracking API');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConfigError('endpoint', 'expected an http(s) URL');
  // Never echo them: the message would carry the password into logs.
  if (url.username !== '' || url.password !== '')
    throw new ConfigError(
      'endpoint',
      'credentials in the URL are not accepted (the write key is sent as the HTTP Basic user name)',
    );
  if (url.hash !== '') throw new ConfigError('endpoint', 'a URL with a #fragment is not accepted');
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  requireTimerMs('requestTimeoutMs', requestTimeoutMs);
  // Appended to the path, so that a query (`?tenant=t1`) stays a query.
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/v1/batch`;
  return { batchUrl: url.href, requestTimeoutMs };
}

/** A URL as logs and error messages show it: no query (it may carry a token), no credentials. */
export function redactedUrl(href: string): string {
  const url = new URL(href);
  return `${url.origin}${url.pathname}`;
}

/**
 * Whether a DEBUG value (as the `debug` package reads it: names separated by commas or spaces,
 * `*` as a wildcard, `-name` to exclude) turns on the library's logging.
 */
export function debugEnabled(value: string | undefined, name = 'analytics'): boolean {
  let enabled = false;
  for (const pattern of (value ?? '').split(/[\s,]+/).filter(Boolean)) {
    const excluded = pattern.startsWith('-');
    const body = excluded ? pattern.slice(1) : pattern;
    const regex = new RegExp(`^${body.split('*').map(escapeRegExp).join('.*')}$`);
    if (!regex.test(name)) continue;
    if (excluded) return false;
    enabled = true;
  }
  return enabled;
}

function defaultLogger(debug: string | undefined): Logger {
  if (!debugEnabled(debug)) return silentLogger();
  return createLogger({
    name: 'analytics',
    level: 'debug',
    destination: pino.destination({ dest: 2, sync: true }),
  });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The longest delay a Node timer takes (2^31 - 1 ms, ~24.8 days): Node fires a longer one after
 * 1 ms, so a larger flushAfterMs would flush at once and a larger timeout would time out at once.
 */
export const MAX_TIMER_MS = 2_147_483_647;

function requireInteger(key: string, value: number, min: number, max = Number.MAX_SAFE_INTEGER): void {
  if (!Number.isInteger(value) || value < min || value > max)
    throw new ConfigError(key, `expected an integer from ${min} to ${max}, got ${value}`);
}

/** A delay in ms that a timer is armed with. */
function requireTimerMs(key: string, value: number): void {
  requireInteger(key, value, 1, MAX_TIMER_MS);
}
