/**
 * Jest globalSetup of the "integration" project: finds or starts a Kafka + schema registry
 * (env, a running `npm run stack -- up`, testcontainers, or local processes) and exports its
 * addresses to the workers through env. The stop function is kept for global-teardown.ts.
 */
import { resolveCluster } from '../../tools/devstack';
import { createLogger } from '../../src/observability/logger';

declare global {
  // Set here, read by global-teardown.ts (both run in jest's main process).
  var hooklineStopCluster: (() => Promise<void>) | undefined;
}

export default async function globalSetup(): Promise<void> {
  const logger = createLogger({
    name: 'hookline-test',
    level: process.env.HOOKLINE_TEST_LOG_LEVEL ?? 'info',
  });
  const startedMs = Date.now();
  // The stack's own progress lines only at warn and above; this function logs the one summary line.
  const cluster = await resolveCluster({
    logger: logger.child({ component: 'devstack' }, { level: process.env.HOOKLINE_TEST_LOG_LEVEL ?? 'warn' }),
    watchParentPid: process.pid,
  });
  process.env.KAFKA_BROKERS = cluster.kafkaBrokers.join(',');
  process.env.SCHEMA_REGISTRY_URL = cluster.schemaRegistryUrl;
  process.env.HOOKLINE_CLUSTER_KIND = cluster.kind;
  globalThis.hooklineStopCluster = cluster.stop;
  logger.info(
    {
      kind: cluster.kind,
      started: cluster.started,
      kafkaBrokers: cluster.kafkaBrokers,
      schemaRegistryUrl: cluster.schemaRegistryUrl,
      durationMs: Date.now() - startedMs,
    },
    `integration tests use a ${cluster.kind} cluster`,
  );
}
