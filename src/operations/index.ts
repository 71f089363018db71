import type { Admin, Kafka } from 'kafkajs';
import type { Registry } from 'prom-client';
import type { AvroCodec } from '../avro/codec';
import type { Clock } from '../core/clock';
import type { AdminRoute } from '../http/admin';
import type { BatchingProducer } from '../kafka/batching-producer';
import type { Logger } from '../observability/logger';
import type { CatalogView } from '../records/catalog-model';
import type { EventCodec } from '../records/event';
import { answeredOnceRead, startAttemptIndex } from './attempts/topic-index';
import type { AttemptLog, AttemptSource } from './attempts/log';
import { startSharedAttemptIndex } from './attempts/shared-index';
import { startDlqIndex, type DlqIndex } from './dead-letters/topic-index';
import { AttemptIndexOffError, toOperationsHttpError } from './errors';
import { createOperationsMetrics } from './metrics';
import { Redriver } from './redrive';
import { Replays, type ReplayRouter } from './replay';
import { ReplayBoard } from './replay-board';
import { operationsRoutes } from './routes';

export interface OperationsOptions {
  kafka: Kafka;
  admin: Admin;
  avro: AvroCodec;
  events: EventCodec;
  catalog: CatalogView;
  /** Writes redriven tasks and redrive markers. */
  producer: BatchingProducer;
  /** Routes replayed events to one destination (the routing stage's EventRouter, without de-duplication). */
  replayRouter: ReplayRouter;
  topics: { events: string; deliveries: string; dlq: string; attempts: string; replays: string };
  /** Base of the private consumer groups' ids. */
  clientId: string;
  settings: {
    /**
     * HOOKLINE_ATTEMPT_INDEX: 'true', an index of every partition here (or `remoteAttempts`);
     * 'shared', this process's share of it (`shared`); 'false', none (attempt_index_off).
     */
    attemptIndex: 'true' | 'false' | 'shared';
    attemptIndexWindowMs: number;
    attemptsPerDestination: number;
    /** Bytes all kept attempts may take. */
    attemptIndexMaxBytes: number;
    /** Where the dead-letter index keeps its files. */
    dlqIndexDir: string;
    /** Dead letters the index keeps decoded in memory. */
    dlqCacheEntries: number;
  };
  /**
   * Where another process keeps the attempt index (a child of HOOKLINE_WORKERS other than the one
   * that keeps it): this process then reads no attempts and asks it. Without it: an index here.
   */
  remoteAttempts?: AttemptSource;
  /** With attemptIndex 'shared': the group of the processes sharing it, and how they reach this one. */
  shared?: {
    groupId: string;
    advertisedUrl: string;
    adminToken: string | undefined;
    sessionTimeoutMs: number;
  };
  metrics: Registry;
  clock: Clock;
  logger: Logger;
}

export interface Operations {
  dlq: DlqIndex;
  /**
   * The attempt index kept here (all of it, or this process's share); undefined when it asks
   * another's (`remoteAttempts`) or keeps none.
   */
  attemptIndex: { readonly log: AttemptLog; stop(): Promise<void> } | undefined;
  /** Where the admin API reads attempts: the index here, the remote one, or none (attempt_index_off). */
  attempts: AttemptSource;
  redriver: Redriver;
  replays: Replays;
  /** The operations part of the admin API. */
  routes: AdminRoute[];
  mapError: (err: unknown) => unknown;
  stop(): Promise<void>;
}

/**
 * The operator's tools on the admin API, on every process: the dead-letter index (list, inspect,
 * redrive), the attempt index (or a remote one's answers), and replays of the events topic.
 * Start-up waits for the two index consumers to join, not for them to catch up: the dead-letter
 * endpoints answer 503 (dlq_index_loading) until the whole dead-letter topic has been read. Stop
 * order: replays, then the indexes; the shared producer outlives them.
 */
export async function startOperations(options: OperationsOptions): Promise<Operations> {
  const { kafka, admin, avro, topics, clock, catalog, clientId, settings } = options;
  const logger = options.logger.child({ component: 'operations' });

  const board = new ReplayBoard({
    kafka,
    admin,
    avro,
    producer: options.producer,
    topic: topics.replays,
    clientId,
    clock,
    logger,
  });
  const [dlqResult, attemptsResult, boardResult] = await Promise.allSettled([
    startDlqIndex({
      kafka,
      admin,
      avro,
      topic: topics.dlq,
      clientId,
      dir: settings.dlqIndexDir,
      cacheEntries: settings.dlqCacheEntries,
      logger,
    }),
    startAttemptIndexHere(options, logger),
    board.start(),
  ]);
  if (
    dlqResult.status === 'rejected' ||
    attemptsResult.status === 'rejected' ||
    boardResult.status === 'rejected'
  ) {
    if (dlqResult.status === 'fulfilled') await dlqResult.value.stop();
    if (attemptsResult.status === 'fulfilled') await attemptsResult.value?.stop();
    await board.stop();
    const failed = [dlqResult, attemptsResult, boardResult].find((r) => r.status === 'rejected');
    throw (failed as PromiseRejectedResult).reason;
  }
  const dlq = dlqResult.value;
  const attemptIndex = attemptsResult.value;
  const attempts: AttemptSource =
    settings.attemptIndex === 'false' ? noAttemptIndex : (attemptIndex?.source ?? options.remoteAttempts!);

  const metrics = createOperationsMetrics(options.metrics, {
    dlqCounts: () => dlq.state.counts(),
    // Only where the index is: summed over a group's children, the gauges count each attempt once.
    attemptsKept: attemptIndex && (() => ({ ...attemptIndex.log.kept, read: attemptIndex.log.read })),
  });
  const redriver = new Redriver({
    state: dlq.state,
    ready: dlq.ready,
    catalog,
    producer: options.producer,
    avro,
    deliveriesTopic: topics.deliveries,
    dlqTopic: topics.dlq,
    metrics,
    clock,
    logger,
  });
  const replays = new Replays({
    kafka,
    admin,
    catalog,
    events: options.events,
    router: options.replayRouter,
    board,
    eventsTopic: topics.events,
    clientId,
    metrics,
    clock,
    logger,
  });
  return {
    dlq,
    attemptIndex,
    attempts,
    redriver,
    replays,
    routes: operationsRoutes({ dlq, attempts, redriver, replays, catalog }),
    mapError: toOperationsHttpError,
    stop: async () => {
      await replays.stop();
      await Promise.all([dlq.stop(), attemptIndex?.stop(), board.stop()]);
    },
  };
}

/** HOOKLINE_ATTEMPT_INDEX=false: no attempts read, none to answer with. */
const noAttemptIndex: AttemptSource = {
  find: () => Promise.reject(new AttemptIndexOffError()),
};

/** The attempt index this process keeps, if any: all of it, or its share of a shared one. */
async function startAttemptIndexHere(
  options: OperationsOptions,
  logger: Logger,
): Promise<{ source: AttemptSource; readonly log: AttemptLog; stop(): Promise<void> } | undefined> {
  const { settings, topics } = options;
  if (settings.attemptIndex === 'false' || options.remoteAttempts) return undefined;
  const indexOptions = {
    kafka: options.kafka,
    admin: options.admin,
    avro: options.avro,
    topic: topics.attempts,
    clientId: options.clientId,
    windowMs: settings.attemptIndexWindowMs,
    perDestination: settings.attemptsPerDestination,
    maxBytes: settings.attemptIndexMaxBytes,
    clock: options.clock,
    logger,
  };
  if (settings.attemptIndex === 'shared') {
    if (!options.shared) throw new Error('HOOKLINE_ATTEMPT_INDEX=shared needs the group settings');
    return startSharedAttemptIndex({ ...indexOptions, ...options.shared });
  }
  const index = await startAttemptIndex(indexOptions);
  return { source: answeredOnceRead(index), log: index.log, stop: index.stop };
}
