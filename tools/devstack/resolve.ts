import type { Logger } from '../../src/observability/logger';
import { ConfigError } from '../../src/core/errors';
import { containerRuntimeAvailable, startContainerStack } from './containers';
import { resolveCacheDir } from './paths';
import { startLocalStack } from './stack';
import { isStateAlive, readState } from './state';
import type { ResolvedCluster } from './types';

export interface ResolveClusterOptions {
  logger: Logger;
  /** Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** For a local stack started here: the pid whose death stops it. Default: this process. */
  watchParentPid?: number;
}

/**
 * Finds a cluster, in this order:
 *  1. env `KAFKA_BROKERS` (comma-separated) and `SCHEMA_REGISTRY_URL` (both, or it is a config error);
 *  2. a detached stack started by `npm run stack -- up` (its state file), if alive;
 *  3. testcontainers, when a container runtime answers (unless `HOOKLINE_TESTCONTAINERS=0`);
 *  4. a local stack (child processes).
 * Returns `stop()` that tears down only what this call started. Topics are created on clusters
 * this call (or `up`) started, never on one named by env.
 */
export async function resolveCluster(options: ResolveClusterOptions): Promise<ResolvedCluster> {
  const { logger } = options;
  const env = options.env ?? process.env;
  const brokers = env.KAFKA_BROKERS?.trim();
  const registryUrl = env.SCHEMA_REGISTRY_URL?.trim();
  if (brokers || registryUrl) {
    if (!brokers) throw new ConfigError('KAFKA_BROKERS', 'must be set when SCHEMA_REGISTRY_URL is');
    if (!registryUrl) throw new ConfigError('SCHEMA_REGISTRY_URL', 'must be set when KAFKA_BROKERS is');
    return notStarted({
      kind: 'env',
      kafkaBrokers: brokers
        .split(',')
        .map((b) => b.trim())
        .filter(Boolean),
      schemaRegistryUrl: registryUrl,
    });
  }

  const state = await readState({ cacheDir: resolveCacheDir({ env }) });
  if (state && isStateAlive(state)) {
    logger.debug({ runDir: state.runDir }, 'using the detached stack');
    return notStarted({
      kind: 'detached',
      kafkaBrokers: state.kafkaBrokers,
      schemaRegistryUrl: state.schemaRegistryUrl,
    });
  }

  if (await containerRuntimeAvailable({ logger, env })) {
    const stack = await startContainerStack({ logger });
    return { ...stack, started: true };
  }

  const stack = await startLocalStack({
    logger,
    cacheDir: resolveCacheDir({ env }),
    watchParentPid: options.watchParentPid ?? process.pid,
  });
  return { ...stack, started: true };
}

function notStarted(endpoints: Omit<ResolvedCluster, 'started' | 'stop'>): ResolvedCluster {
  return { ...endpoints, started: false, stop: async () => undefined };
}
