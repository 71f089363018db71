import { Registry } from 'prom-client';
import type { AppContext } from '../app';
import { DeadLetterWriter } from '../delivery/dead-letter';
import type { BatchingProducer } from '../kafka/batching-producer';
import { DedupeWindow } from '../routing/dedupe';
import { createRouterMetrics } from '../routing/metrics';
import { EventRouter } from '../routing/router';
import { startAttemptIndex, type AttemptIndex } from './attempt-index';
import type { Config } from '../config/config';

export type OperationsConfig = Config['operations'];
import { startDlqIndex, type DlqIndex } from './dlq-index';
import { createOperationsMetrics } from './metrics';
import { Redriver } from './redrive';
import { Replays } from './replay';
import { registerOperationsRoutes } from './routes';

export interface Operations {
  dlq: DlqIndex;
  attempts: AttemptIndex;
  redriver: Redriver;
  replays: Replays;
  stop(): Promise<void>;
}

/**
 * The operator's tools on the admin API, on every process: the dead-letter index (list, inspect,
 * redrive), the attempt index, and replays of the events topic. Start-up waits for the two
 * index consumers to join, not for them to catch up: the dead-letter endpoints answer 503
 * (dlq_index_loading) until the whole dead-letter topic has been read. Stop order: replays, then
 * the indexes; the shared producer outlives them.
 */
export async function startOperations(options: {
  context: AppContext;
  producer: BatchingProducer;
  settings: OperationsConfig;
}): Promise<Operations> {
  const { context, producer, settings } = options;
  const { config, kafka, admin, avro, topics, clock, catalog } = context;
  const logger = context.logger.child({ component: 'operations' });
  const clientId = config.kafka.clientId;

  const [dlqResult, attemptsResult] = await Promise.allSettled([
    startDlqIndex({ kafka, admin, avro, topic: topics.dlq, clientId, logger }),
    startAttemptIndex({
      kafka,
      admin,
      avro,
      topic: topics.attempts,
      clientId,
      windowMs: settings.attemptIndexWindowMs,
      perDestination: settings.attemptsPerDestination,
      clock,
      logger,
    }),
  ]);
  if (dlqResult.status === 'rejected' || attemptsResult.status === 'rejected') {
    if (dlqResult.status === 'fulfilled') await dlqResult.value.stop();
    if (attemptsResult.status === 'fulfilled') await attemptsResult.value.stop();
    throw dlqResult.status === 'rejected'
      ? dlqResult.reason
      : (attemptsResult as PromiseRejectedResult).reason;
  }
  const dlq = dlqResult.value;
  const attempts = attemptsResult.value;

  const metrics = createOperationsMetrics(context.metrics, () => dlq.state.counts());
  const redriver = new Redriver({
    state: dlq.state,
    ready: dlq.ready,
    catalog,
    producer,
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
    events: context.events,
    router: replayRouter(context, producer),
    eventsTopic: topics.events,
    clientId,
    metrics,
    clock,
    logger,
  });
  registerOperationsRoutes({
    router: context.router,
    adminToken: config.adminToken,
    dlq,
    attempts: attempts.log,
    redriver,
    replays,
    catalog,
    logger,
  });
  return {
    dlq,
    attempts,
    redriver,
    replays,
    stop: async () => {
      await replays.stop();
      await Promise.all([dlq.stop(), attempts.stop()]);
    },
  };
}

/**
 * An EventRouter of the replays' own: only `route(event, destinationId)` is used, which skips
 * de-duplication, so its dedupe window stays empty. Its router metrics go to a private registry
 * (the router role's own are on the process registry); replays count `hookline_replayed_tasks_total`.
 */
function replayRouter(context: AppContext, producer: BatchingProducer): EventRouter {
  const { avro, topics, clock } = context;
  return new EventRouter({
    catalog: context.catalog,
    events: context.events,
    avro,
    producer,
    deadLetters: new DeadLetterWriter({ producer, avro, topic: topics.dlq, clock }),
    dedupe: new DedupeWindow({ windowMs: 0, maxEntries: 0, clock }),
    deliveriesTopic: topics.deliveries,
    metrics: createRouterMetrics(new Registry()),
    clock,
    logger: context.logger.child({ component: 'replay' }),
  });
}
