import { promises as fs, rmSync, rmdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '../../src/observability/logger';
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
  /**
   * Detaches the stack: it keeps running after this process exits (see `npm run stack -- up`),
   * until `ownerPid` (if given) dies.
   */
  release(options?: { ownerPid?: number }): Promise<void>;
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
    if (stopping)
      throw new StackError(`the stack is stopping; not starting ${spec.name}`, { stage: 'start' });
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
  const componentDirs = [path.join(runDir, 'kafka'), path.join(runDir, 'registry')];
  // Stops the whole stack (and deletes the run dir) on SIGINT/SIGTERM, even during startup. When
  // this process exits without stop(), supervisors delete their folders (see supervisor.ts); this
  // deletes those no running supervisor will (a component between two of its processes).
  const untrack = track({
    stop,
    killNow: () => {
      for (const dir of componentDirs) {
        if (!processes.some((proc) => proc.cleanupDir === dir && proc.isRunning())) {
          rmSync(dir, { recursive: true, force: true });
        }
      }
      try {
        rmdirSync(runDir);
      } catch {
        // Not empty yet: the last supervisor removes it.
      }
    },
  });

  const common = {
    java: javaCommand(),
    runDir,
    spawn,
    logger,
    readyTimeoutMs: options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS,
  };
  logger.debug({ runDir }, 'starting local stack');
  const [kafkaResult, registryResult] = await Promise.allSettled([
    startKafka({ ...common, dir: componentDirs[0], libDir: dists.kafkaLibDir }),
    startRegistry({ ...common, dir: componentDirs[1], registryJar: dists.registryJar }),
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
    release: async (releaseOptions = {}) => {
      await fs.writeFile(releaseFile, `${releaseOptions.ownerPid ?? 0}\n`);
      for (const proc of processes) proc.release();
      untrack();
    },
  };
}
