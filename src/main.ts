/**
 * `npm start`: reads config, brings up a local Kafka + schema registry when no cluster is
 * configured, starts Hookline, and shuts everything down on SIGINT/SIGTERM.
 */
import { randomBytes } from 'node:crypto';
import { startApp } from './app';
import { loadConfig, type Config } from './config/config';
import { resolveCluster } from './devstack';
import { ConfigError } from './errors';
import { createLogger } from './observability/logger';

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`hookline: invalid configuration: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger({ level: config.logLevel });

  if (!config.adminToken) {
    config = { ...config, adminToken: randomBytes(24).toString('base64url') };
    process.stdout.write(
      `Generated a development admin token (set HOOKLINE_ADMIN_TOKEN to choose one):\n  ${config.adminToken}\n`,
    );
  }

  const cluster = await resolveCluster({ logger, env: process.env });
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await app?.stop();
    await cluster.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  let app: Awaited<ReturnType<typeof startApp>> | undefined;
  try {
    app = await startApp({
      config,
      cluster: { kafkaBrokers: cluster.kafkaBrokers, schemaRegistryUrl: cluster.schemaRegistryUrl },
      logger,
    });
  } catch (err) {
    logger.fatal({ err }, 'start-up failed');
    await cluster.stop();
    process.exit(1);
  }
  const base = `http://${config.http.host === '0.0.0.0' ? '127.0.0.1' : config.http.host}:${app.httpPort}`;
  process.stdout.write(
    [
      '',
      `Hookline is up (${cluster.kind} cluster).`,
      `  HTTP API        ${base}   (tracking /v1/*, admin /api/v1/*, /healthz, /readyz, /metrics)`,
      `  Kafka brokers   ${cluster.kafkaBrokers.join(',')}`,
      `  Schema registry ${cluster.schemaRegistryUrl}`,
      '',
    ].join('\n'),
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`hookline: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
