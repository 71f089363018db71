import type { AvroCodec } from '../avro/codec';
import type { CatalogView } from '../catalog/model';
import type { Clock } from '../clock';
import type { BatchingProducer, OutgoingMessage } from '../kafka/batching-producer';
import type { Logger } from '../observability/logger';
import { dueAtHeader } from '../retry/due-header';
import { formatDelay, nextRetry, retryTopic, type RetryPolicy } from '../retry/schedule';
import type { DeadLetterWriter } from './dead-letter';
import { deliverToDestination, type DeliveryOutcome, type UrlAttempt } from './failover';
import type { WebhookClient } from './http-client';
import type { DeliveryMetrics } from './metrics';
import { encodeTask, taskKey, type AttemptSummary, type DeliveryTask } from './task';

export const DELIVERY_ATTEMPT_RECORD = 'io.hookline.delivery.DeliveryAttempt';

export interface DeliveryExecutorOptions {
  catalog: CatalogView;
  client: WebhookClient;
  producer: BatchingProducer;
  avro: AvroCodec;
  deadLetters: DeadLetterWriter;
  retryPolicy: RetryPolicy;
  /** Stops calls to a URL that answered 410 Gone (a catalog change, seen by every process). */
  disableWebhook: (destinationId: string, url: string, reason: string) => Promise<unknown>;
  topicPrefix: string;
  attemptsTopic: string;
  metrics: DeliveryMetrics;
  clock: Clock;
  logger: Logger;
}

type Handoff =
  | { outcome: 'delivered' }
  | { outcome: 'retry_scheduled'; tierDelayMs: number; dueAtMs: number }
  | { outcome: 'dead_lettered'; reason: string };

/**
 * Attempts one task and hands it on, returning only once that hand-off is durable:
 * delivered → an attempt record; retriable failure → the task in its delay topic; otherwise →
 * the task in the dead-letter topic with the reason. The same path serves first attempts and
 * retries.
 */
export class DeliveryExecutor {
  constructor(private readonly options: DeliveryExecutorOptions) {}

  readonly execute = async (task: DeliveryTask): Promise<void> => {
    const { catalog, metrics, clock } = this.options;
    const destination = catalog.destination(task.destinationId);
    if (!destination || !destination.enabled) {
      const reason = destination ? 'destination_disabled' : 'destination_deleted';
      await this.options.deadLetters.task(task, reason);
      metrics.deadLettered.inc({ reason });
      metrics.deliveries.inc({ destination_id: task.destinationId, outcome: 'dead_lettered' });
      return;
    }

    const startedAtMs = clock.now();
    metrics.inFlight.inc();
    let outcome: DeliveryOutcome;
    try {
      outcome = await deliverToDestination({
        client: this.options.client,
        destination,
        payload: task.payload,
        clock,
        logger: this.options.logger,
        logFields: {
          messageId: task.messageId,
          sourceId: task.sourceId,
          destinationId: task.destinationId,
          attempt: task.attempts + 1,
        },
      });
    } finally {
      metrics.inFlight.dec();
    }
    for (const a of outcome.attempts) {
      metrics.attempts.inc({ destination_id: task.destinationId, result: a.result });
      metrics.attemptSeconds.observe({ destination_id: task.destinationId }, a.durationMs / 1_000);
      if (a.status === 410)
        await this.urlGone(task.destinationId, destination.settings.webhooks[a.urlIndex]!.url);
    }

    const attempted = recordAttempt(task, outcome, startedAtMs, clock.now() - startedAtMs);
    const handoff = this.decide(attempted, outcome);
    await this.handOff(attempted, handoff, outcome.attempts, startedAtMs);

    metrics.deliveries.inc({ destination_id: task.destinationId, outcome: handoff.outcome });
    if (handoff.outcome === 'delivered')
      metrics.endToEndSeconds.observe((clock.now() - task.receivedAtMs) / 1_000);
    if (handoff.outcome === 'dead_lettered') metrics.deadLettered.inc({ reason: handoff.reason });
    if (handoff.outcome === 'retry_scheduled')
      metrics.retriesScheduled.inc({ tier: formatDelay(handoff.tierDelayMs) });
  };

  /**
   * Backpressure: hands a task that its destination's lane has no room for to the first delay
   * topic, unattempted (attempt count and cutoff clock untouched).
   */
  readonly defer = async (task: DeliveryTask): Promise<void> => {
    const delayMs = this.options.retryPolicy.scheduleMs[0]!;
    const dueAtMs = this.options.clock.now() + delayMs;
    await this.options.producer.send([
      {
        topic: retryTopic(this.options.topicPrefix, delayMs),
        key: taskKey(task),
        value: encodeTask(this.options.avro, { ...task, dueAtMs }),
        headers: dueAtHeader(dueAtMs),
      },
    ]);
    this.options.metrics.deliveries.inc({ destination_id: task.destinationId, outcome: 'deferred' });
  };

  /** Once per URL and process: further 410s of tasks in flight meanwhile add nothing. */
  private readonly gone = new Set<string>();

  private async urlGone(destinationId: string, url: string): Promise<void> {
    const key = `${destinationId} ${url}`;
    if (this.gone.has(key)) return;
    this.gone.add(key);
    try {
      await this.options.disableWebhook(destinationId, url, 'http_410');
      this.options.metrics.urlsDisabled.inc({ destination_id: destinationId });
    } catch (err) {
      this.gone.delete(key); // the next 410 tries again
      this.options.logger.error(
        { err: (err as Error).message, destinationId },
        'could not disable a webhook URL that answered 410',
      );
    }
  }

  private decide(task: DeliveryTask, outcome: DeliveryOutcome): Handoff {
    if (outcome.kind === 'delivered') return { outcome: 'delivered' };
    if (!outcome.retriable) return { outcome: 'dead_lettered', reason: nonRetriableReason(outcome.attempts) };
    const decision = nextRetry({
      policy: this.options.retryPolicy,
      attempts: task.attempts,
      firstAttemptAtMs: task.firstAttemptAtMs!,
      nowMs: this.options.clock.now(),
      retryAfterMs: outcome.retryAfterMs,
    });
    if (decision.kind === 'dead-letter') return { outcome: 'dead_lettered', reason: decision.reason };
    return { outcome: 'retry_scheduled', tierDelayMs: decision.delayMs, dueAtMs: decision.dueAtMs };
  }

  private async handOff(
    task: DeliveryTask,
    handoff: Handoff,
    urls: UrlAttempt[],
    atMs: number,
  ): Promise<void> {
    const { producer, avro } = this.options;
    const attemptRecord = this.attemptRecord(task, handoff, urls, atMs);
    if (handoff.outcome === 'dead_lettered') {
      await Promise.all([
        this.options.deadLetters.task(task, handoff.reason),
        producer.send([attemptRecord]),
      ]);
      return;
    }
    const messages: OutgoingMessage[] = [attemptRecord];
    if (handoff.outcome === 'retry_scheduled') {
      messages.push({
        topic: retryTopic(this.options.topicPrefix, handoff.tierDelayMs),
        key: taskKey(task),
        value: encodeTask(avro, { ...task, dueAtMs: handoff.dueAtMs }),
        headers: dueAtHeader(handoff.dueAtMs),
      });
    }
    await producer.send(messages);
  }

  private attemptRecord(
    task: DeliveryTask,
    handoff: Handoff,
    urls: UrlAttempt[],
    atMs: number,
  ): OutgoingMessage {
    const last = task.history[task.history.length - 1]!;
    return {
      topic: this.options.attemptsTopic,
      key: task.destinationId,
      value: this.options.avro.encode(DELIVERY_ATTEMPT_RECORD, {
        taskId: task.taskId,
        destinationId: task.destinationId,
        sourceId: task.sourceId,
        messageId: task.messageId,
        eventType: task.eventType,
        attempt: task.attempts,
        at: atMs,
        durationMs: last.durationMs,
        outcome: handoff.outcome,
        detail:
          handoff.outcome === 'dead_lettered'
            ? handoff.reason
            : handoff.outcome === 'retry_scheduled'
              ? formatDelay(handoff.tierDelayMs)
              : null,
        dueAt: handoff.outcome === 'retry_scheduled' ? handoff.dueAtMs : null,
        urls: urls.map((u) => ({
          urlIndex: u.urlIndex,
          result: u.result,
          status: u.status ?? null,
          durationMs: Math.round(u.durationMs),
          error: u.error ?? null,
        })),
      }),
    };
  }
}

/** The task after one more attempt: counters, first-attempt time and history updated. */
export function recordAttempt(
  task: DeliveryTask,
  outcome: DeliveryOutcome,
  atMs: number,
  durationMs: number,
): DeliveryTask {
  const last = outcome.attempts[outcome.attempts.length - 1];
  const summary: AttemptSummary = {
    atMs,
    durationMs: Math.round(durationMs),
    urlIndex: last?.urlIndex ?? 0,
    ...(last?.status !== undefined && { status: last.status }),
    result: outcome.kind === 'delivered' ? 'success' : (last?.result ?? 'connection'),
    ...(last?.error !== undefined && { error: last.error }),
  };
  return {
    ...task,
    attempts: task.attempts + 1,
    firstAttemptAtMs: task.firstAttemptAtMs ?? atMs,
    history: [...task.history, summary],
  };
}

/** e.g. `http_410`, `tls`: what made every URL fail for good. */
function nonRetriableReason(attempts: UrlAttempt[]): string {
  const last = attempts[attempts.length - 1];
  if (!last) return 'all_urls_disabled';
  return last.status !== undefined ? `http_${last.status}` : last.result;
}
