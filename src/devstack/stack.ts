import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '../observability/logger';
import { track } from './cleanup';
import type { Spawner } from './component';
import { ensureDistributions } from './download';
import { StackError } from './errors';
import { type KafkaNode, startKafka } from './kafka';
import { createDevTopics } from './kafka-client';
import { javaCommand, resolveCacheDir } from './paths';
import { SupervisedProcess } from './process';
import { type RegistryNode, startRegistry } from './registry';
import type { RunningStack } from './types';

/** Per component. Apicurio is ready in about 8 s alone, slower while Kafka boots on 2 cores. */
const DEFAULT_READY_TIMEOUT_MS = 120_000;

export interface StartLocalStackOptions {
  logger: Logger;
  /** Default: env HOOKLINE_CACHE_DIR, else ~/.cache/hookline. */
  cacheDir?: string;
  /** The stack stops when this pid dies, even by SIGKILL. Default: this process. */
  watchParentPid?: number;
  /** Deadline for each of Kafka and the registry to answer. Default 120 s. */
  readyTimeoutMs?: number;
}

/** A local stack with the details the CLI needs to hand it over to a state file. */
export interface LocalStack extends RunningStack {
  kind: 'local';
  runDir: string;
  kafka: KafkaNode;
  registry: RegistryNode;
  /** Detaches the stack: it keeps running after this process exits (see `npm run stack -- up`). */
  release(): Promise<void>;
  /** True once stop() was called (or a signal started stopping it). */
  isStopping(): boolean;
}

/**
 * Starts Kafka 3.9.1 (KRaft) and Apicurio Registry 3.0.9 as supervised child processes on free
 * 127.0.0.1 ports, in parallel, in a fresh temp run dir, then creates Hookline's topics.
 * Downloads both into the cache the first time.
 */
export async function startLocalStack(options: StartLocalStackOptions): Promise<RunningStack> {
  const { kind, kafkaBrokers, schemaRegistryUrl, stop } = await launchLocalStack(options);
  return { kind, kafkaBrokers, schemaRegistryUrl, stop };
}

export async function launchLocalStack(options: StartLocalStackOptions): Promise<LocalStack> {
  const logger = options.logger;
  const startedMs = Date.now();
  const cacheDir = resolveCacheDir({ cacheDir: options.cacheDir });
  const dists = await ensureDistributions({ cacheDir, logger });
  const downloadedMs = Date.now();

  const runDir = await fs.mkdtemp(path.join(os.tmpdir(), 'hookline-stack-'));
  const releaseFile = path.join(runDir, 'released');
  const supervision = { watchParentPid: options.watchParentPid ?? process.pid, releaseFile };
  const processes: SupervisedProcess[] = [];
  const spawn: Spawner = (spec) => {
    const proc = SupervisedProcess.spawn({ spec, supervision, logger });
    processes.push(proc);
    return proc;
  };

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      const stopStartedMs = Date.now();
      await Promise.all(processes.map((proc) => proc.stop()));
      await fs.rm(runDir, { recursive: true, force: true });
      untrack();
      logger.info({ runDir, durationMs: Date.now() - stopStartedMs }, 'local stack stopped');
    })();
    return stopping;
  };
  // Stops the whole stack (and deletes the run dir) on SIGINT/SIGTERM, even during startup.
  const untrack = track({ stop, killNow: () => undefined });

  const common = {
    java: javaCommand(),
    runDir,
    spawn,
    logger,
    readyTimeoutMs: options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS,
  };
  logger.debug({ runDir }, 'starting local stack');
  const [kafkaResult, registryResult] = await Promise.allSettled([
    startKafka({ ...common, dir: path.join(runDir, 'kafka'), libDir: dists.kafkaLibDir }),
    startRegistry({ ...common, dir: path.join(runDir, 'registry'), registryJar: dists.registryJar }),
  ]);
  if (kafkaResult.status === 'rejected' || registryResult.status === 'rejected') {
    await stop();
    const failures = [kafkaResult, registryResult].filter((r) => r.status === 'rejected');
    if (failures.length > 1)
      logger.error({ err: failures[1].reason }, 'the schema registry failed to start too');
    throw failures[0].reason;
  }
  const kafka = kafkaResult.value;
  const registry = registryResult.value;
  const readyMs = Date.now();

  try {
    await createDevTopics({ brokers: kafka.brokers, logger });
  } catch (err) {
    await stop();
    throw new StackError('could not create Hookline topics on the local Kafka', {
      stage: 'topics',
      cause: err,
    });
  }

  logger.info(
    {
      kafkaBrokers: kafka.brokers,
      schemaRegistryUrl: registry.url,
      runDir,
      durationMs: Date.now() - startedMs,
      cacheCheckMs: downloadedMs - startedMs,
      processesReadyMs: readyMs - downloadedMs,
      topicsMs: Date.now() - readyMs,
    },
    'local stack ready',
  );

  return {
    kind: 'local',
    kafkaBrokers: kafka.brokers,
    schemaRegistryUrl: registry.url,
    runDir,
    kafka,
    registry,
    stop,
    isStopping: () => stopping !== undefined,
    release: async () => {
      await fs.writeFile(releaseFile, `${new Date().toISOString()}\n`);
      for (const proc of processes) proc.release();
      untrack();
    },
  };
}
