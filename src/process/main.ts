/**
 * The process entry point (`npm run start:prod`, the container image): reads config, starts
 * Hookline on the cluster it names (KAFKA_BROKERS, SCHEMA_REGISTRY_URL), and shuts down on
 * SIGINT/SIGTERM. `npm start` runs this same code through tools/devstack/start.ts, which first
 * finds or starts a local Kafka and schema registry.
 */
// First: what must be in place before kafkajs loads (src/kafka/kafkajs-fork/README.md).
import '../kafka/kafkajs-fork/preload';
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { forkChildren } from './primary';
import { announceStarted, isChildProcess, linkToPrimary, setMetricAggregators } from './child';
import { startApp, type App, type ClusterAddress } from '../compose/index';
import { loadConfig, processCount, type Config } from '../config/config';
import { ConfigError } from '../core/errors';
import { BrokerOutageWatch } from '../kafka/outage';
import type { DestinationStream } from 'pino';
import { createLogger, logFormat, type Logger } from '../observability/logger';
import { urlWithoutPassword } from '../observability/redact';
import { SecretKeyring } from '../security/secrets';
import { startThroughOutage } from './start-up';

/** A cluster to run on, and how to let go of it when Hookline stops. */
export interface Cluster extends ClusterAddress {
  /** Shown in the start-up banner: `env`, `local`, `detached`, ... */
  kind: string;
  stop(): Promise<void>;
}

export interface RunOptions {
  env: NodeJS.ProcessEnv;
  /** Finds the cluster when config names none. Without it, KAFKA_BROKERS is required. */
  resolveCluster?: (logger: Logger) => Promise<Cluster>;
  /**
   * The secrets key when HOOKLINE_SECRETS_KEY is unset (`npm start`: a kept development key).
   * Without it (the production entry point, the image, the chart) the key is required.
   */
  localSecretsKey?: (logger: Logger) => Promise<Buffer>;
  /**
   * A human-readable log stream (`npm start`: pino-pretty), used when stdout is a terminal
   * (logFormat). Without it (the production entry point, the image) logs are JSON.
   */
  prettyLogs?: () => DestinationStream;
}

/** Runs Hookline until SIGINT/SIGTERM; exits the process (2 on bad config, 1 on a failed start). */
export async function run(options: RunOptions): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(options.env);
  } catch (err) {
    if (err instanceof ConfigError) exit(2, `hookline: invalid configuration: ${err.message}\n`);
    throw err;
  }
  const format = logFormat({
    stdoutIsTTY: process.stdout.isTTY === true,
    development: options.prettyLogs !== undefined,
  });
  const destination = format === 'pretty' ? options.prettyLogs?.() : undefined;
  const logger = createLogger({ level: config.logLevel, destination });
  let localKey: Buffer | undefined;
  if (!config.secrets.keyring) {
    if (!options.localSecretsKey) {
      exit(
        2,
        'hookline: invalid configuration: HOOKLINE_SECRETS_KEY: required (base64 of 32 bytes, e.g. ' +
          '`openssl rand -base64 32`; every process needs the same key; `npm start` generates one for development)\n',
      );
    }
    let current: Buffer;
    try {
      current = await options.localSecretsKey(logger);
    } catch (err) {
      if (err instanceof ConfigError) exit(2, `hookline: invalid configuration: ${err.message}\n`);
      throw err;
    }
    config = { ...config, secrets: { keyring: new SecretKeyring({ current }) } };
    localKey = current;
  }

  const cluster = await clusterOf(config, logger, options.resolveCluster);
  if (!config.adminToken) {
    config = { ...config, adminToken: randomBytes(24).toString('base64url') };
    process.stdout.write(
      `Generated a development admin token (set HOOKLINE_ADMIN_TOKEN to choose one):\n  ${config.adminToken}\n`,
    );
  }
  const processes = isChildProcess() ? 1 : processCount(config.processes, availableParallelism());
  if (processes > 1) {
    // The primary: the children get what it resolved, so they neither start a stack nor make keys.
    const children = forkChildren({
      count: processes,
      env: {
        ...options.env,
        KAFKA_BROKERS: cluster.kafkaBrokers.join(','),
        SCHEMA_REGISTRY_URL: cluster.schemaRegistryUrl,
        HOOKLINE_ADMIN_TOKEN: config.adminToken,
        ...(localKey && { HOOKLINE_SECRETS_KEY: localKey.toString('base64') }),
      },
      logger,
      onAllStarted: (ports) => banner(config, cluster, { ...ports, processes }),
      onStartFailed: () => void stopAll().then(() => process.exit(1)),
    });
    const stopAll = async () => {
      await children.stop();
      await cluster.stop();
    };
    onSignal(logger, stopAll);
    return;
  }

  // Kept as a promise so that a signal during start-up can wait for it: the roles start one
  // after another, and the worker may already be consuming and delivering before the rest is up.
  // A broker outage during start-up is waited out (start-up.ts), not a reason to exit.
  const outage = new BrokerOutageWatch();
  let signalled = () => false;
  // A signal during start-up ends its waits for unreachable brokers at once.
  const startAborted = new AbortController();
  const { signal } = startAborted;
  const starting = startThroughOutage({
    start: () =>
      startApp({
        config,
        cluster,
        logger,
        outage,
        signal,
        linkToPrimary: isChildProcess() ? linkToPrimary : undefined,
      }),
    outage,
    stopping: () => signalled(),
    signal,
    logger,
  });
  const stopping = onSignal(logger, async () => {
    // A signal during start-up stops what start-up started, once it has: consumers already
    // running finish their in-flight work and commit it, instead of the process exiting under
    // them (which made that work be done again by the next process). A start still waiting for
    // the brokers gives up at once.
    startAborted.abort();
    const started = await starting.catch(() => undefined);
    await started?.stop();
    await cluster.stop();
  });
  signalled = stopping;

  let app: App;
  try {
    app = await starting;
  } catch (err) {
    logger.fatal({ err }, 'start-up failed');
    if (stopping()) return; // the signal handler stops the cluster and exits
    await cluster.stop();
    process.exit(1);
  }
  if (isChildProcess()) {
    setMetricAggregators(app.parts.metrics);
    announceStarted({ httpPort: app.httpPort, adminPort: app.adminPort });
  } else banner(config, cluster, { httpPort: app.httpPort, adminPort: app.adminPort, processes: 1 });
}

/**
 * Runs `stop` once on SIGINT/SIGTERM (and, in a child of HOOKLINE_WORKERS, when the primary goes
 * away), then exits 0. Returns whether that has begun.
 */
function onSignal(logger: Logger, stop: () => Promise<void>): () => boolean {
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  if (isChildProcess()) process.on('disconnect', () => void shutdown('primary gone'));
  return () => stopping;
}

function banner(
  config: Config,
  cluster: Cluster,
  ports: { httpPort: number; adminPort: number | undefined; processes: number },
): void {
  process.stdout.write(bannerText(config, cluster, ports));
}

/**
 * The start-up banner: where the APIs listen and which cluster this is. The schema registry URL
 * is shown without its password (`https://user:[redacted]@host`): stdout is collected like logs.
 */
export function bannerText(
  config: Pick<Config, 'http' | 'adminHttp'>,
  cluster: Pick<Cluster, 'kind' | 'kafkaBrokers' | 'schemaRegistryUrl'>,
  ports: { httpPort: number; adminPort: number | undefined; processes: number },
): string {
  const urlOf = (host: string, port: number) => `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
  const base = urlOf(config.http.host, ports.httpPort);
  const adminLine =
    config.adminHttp && ports.adminPort !== undefined
      ? [
          `  HTTP API        ${base}   (tracking /v1/*, /healthz, /readyz, /metrics)`,
          `  Admin API       ${urlOf(config.adminHttp.host, ports.adminPort)}   (/api/v1/*)`,
        ]
      : [`  HTTP API        ${base}   (tracking /v1/*, admin /api/v1/*, /livez, /readyz, /metrics)`];
  return [
    '',
    `Hookline is up (${cluster.kind} cluster, ${ports.processes} process${ports.processes > 1 ? 'es' : ''}).`,
    ...adminLine,
    `  Kafka brokers   ${cluster.kafkaBrokers.join(',')}`,
    `  Schema registry ${urlWithoutPassword(cluster.schemaRegistryUrl)}`,
    '',
  ].join('\n');
}

async function clusterOf(
  config: Config,
  logger: Logger,
  resolve: RunOptions['resolveCluster'],
): Promise<Cluster> {
  const { brokers } = config.kafka;
  const registryUrl = config.registry.url;
  if (brokers && registryUrl) {
    return {
      kind: 'env',
      kafkaBrokers: brokers,
      schemaRegistryUrl: registryUrl,
      stop: async () => undefined,
    };
  }
  if (resolve) return resolve(logger);
  exit(
    2,
    'hookline: invalid configuration: KAFKA_BROKERS: required (set KAFKA_BROKERS and SCHEMA_REGISTRY_URL; ' +
      '`npm start` runs a local cluster for development)\n',
  );
}

function exit(code: number, message: string): never {
  process.stderr.write(message);
  process.exit(code);
}

export function fail(err: unknown): never {
  exit(1, `hookline: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
}

if (require.main === module) run({ env: process.env }).catch(fail);
