import type { AvroCodec } from '../avro/codec';
import type { RetryPolicy } from '../config/retry';
import { retryTransient, type BackoffPolicy } from '../core/backoff';
import type { Clock } from '../core/clock';
import type { BatchingProducer, OutgoingMessage } from '../kafka/batching-producer';
import { formatDelay, retryTopic } from '../kafka/topics';
import type { Logger } from '../observability/logger';
import type { CatalogView, Destination } from '../records/catalog-model';
import type { DeadLetterWriter } from '../records/dead-letter';
import { encodeAttempt } from '../records/delivery-attempt';
import { encodeTask, taskKey, type DeliveryTask } from '../records/delivery-task';
import type { CircuitRegistry } from './circuit/registry';
import { deliverToDestination, type DeliveryOutcome } from './failover';
import { DELIVERED_FROM_HEADER } from './delivered-lookup';
import { GoneUrls } from './gone-urls';
import { planHandoff, type HandoffPlan } from './handoff';
import type { WebhookClient } from './http/client';
import type { RequestsDone } from './dispatcher';
import type { DeliveryMetrics } from './metrics';
import { standardWebhooksKeysAt, type OpenedSettings, type SettingsOpener } from './secrets';
import { SecretUnreadableError } from '../security/secrets';
import { webhookIdFor } from './http/standard-webhooks';
import { dueAtHeader } from './retry/due-header';
import { cutoffClockStartMs, parkingStep, PAUSED_ERROR, pauseStep, timesPaused } from './retry/schedule';

/** Hand-offs Kafka did not take are tried again within 1 s: done (committed) soon after it is back. */
const HANDOFF_BACKOFF: BackoffPolicy = { initialDelayMs: 100, maxDelayMs: 1_000 };

export interface DeliveryExecutorOptions {
  catalog: CatalogView;
  /** Opens the destination's sealed secrets and header values, only here, only to send. */
  secrets: SettingsOpener;
  client: WebhookClient;
  producer: BatchingProducer;
  avro: AvroCodec;
  deadLetters: DeadLetterWriter;
  retryPolicy: RetryPolicy;
  /** After a Standard Webhooks secret changes, the previous one also signs for this long. */
  rotationOverlapMs: number;
  /** Stops calls to a URL that answered 410 Gone (a catalog change, seen by every process). */
  disableWebhook: (destinationId: string, url: string, reason: string) => Promise<unknown>;
  topicPrefix: string;
  attemptsTopic: string;
  /** Where the tasks of rate-limited destinations come back from the delay topics (see `forward`). */
  deliveriesTopic: string;
  metrics: DeliveryMetrics;
  /** Circuit breakers per URL; without them every URL is always called. */
  circuits?: CircuitRegistry;
  clock: Clock;
  logger: Logger;
}

/**
 * Attempts one task and hands it on, returning only once that hand-off is durable (retried while
 * Kafka is unavailable, until stop()):
 * delivered → an attempt record; retriable failure → the task in its delay topic; otherwise →
 * the task in the dead-letter topic with the reason. The same path serves first attempts and
 * retries. What goes where is decided by `planHandoff` (pure); this class does the I/O.
 */
export class DeliveryExecutor {
  private stopped = false;

  private readonly goneUrls: GoneUrls;

  constructor(private readonly options: DeliveryExecutorOptions) {
    this.goneUrls = new GoneUrls({
      catalog: options.catalog,
      disableWebhook: options.disableWebhook,
      onDisabled: (destinationId) => options.metrics.urlsDisabled.inc({ destination_id: destinationId }),
      logger: options.logger,
    });
  }

  /** Hand-offs no longer wait for Kafka to come back: the task is left to the consumer (redelivered). */
  stop(): void {
    this.stopped = true;
  }

  /**
   * `requestsDone` is called once the requests are over, before the hand-off (see Dispatcher).
   * `source`: where the task was read; a delivered attempt's record names it (DELIVERED_FROM_HEADER).
   */
  readonly execute = async (
    task: DeliveryTask,
    requestsDone?: RequestsDone,
    source?: string,
  ): Promise<void> => {
    const { catalog, metrics, clock } = this.options;
    const destination = catalog.destination(task.destinationId);
    if (!destination) return this.deadLetter(task, 'destination_deleted');
    if (!destination.enabled) return this.pause(task);
    const opened = this.openSettings(task, destination.settings);
    if (!opened) {
      await this.deadLetter(task, 'secret_unreadable');
      return;
    }
    const { settings, standardWebhooksKeys } = opened;

    const startedAtMs = clock.now();
    metrics.inFlight.inc();
    let outcome: DeliveryOutcome | undefined;
    try {
      outcome = await deliverToDestination({
        client: this.options.client,
        destination: { id: task.destinationId, settings },
        payload: task.payload,
        ...(standardWebhooksKeys.length > 0 && {
          standardWebhooks: { id: webhookIdFor(task.taskId), keys: standardWebhooksKeys },
        }),
        clock,
        logger: this.options.logger,
        logFields: {
          messageId: task.messageId,
          sourceId: task.sourceId,
          destinationId: task.destinationId,
          attempt: task.attempts + 1,
        },
        circuit: this.options.circuits?.gate(task.destinationId),
      });
    } finally {
      metrics.inFlight.dec();
      requestsDone?.(outcome?.kind === 'delivered');
    }
    for (const a of outcome.attempts) {
      if (a.result === 'circuit_open' || a.result === 'deferred') continue; // no request was made
      metrics.attempts.inc({ destination_id: task.destinationId, result: a.result });
      metrics.attemptSeconds.observe({ destination_id: task.destinationId }, a.durationMs / 1_000);
      if (a.status === 410)
        await this.goneUrls.disable(task.destinationId, destination.settings.webhooks[a.urlIndex]!.url);
    }

    const plan = planHandoff({
      task,
      outcome,
      policy: this.options.retryPolicy,
      startedAtMs,
      nowMs: clock.now(),
    });
    // The receiver may have the event by now: while Kafka is unavailable only the hand-off is tried
    // again. Failing here would make the consumer run the whole task again, calling the receiver
    // once more per retry (seen as duplicates in the chaos run's broker kill).
    await retryTransient(() => this.options.producer.send(this.handoffMessages(plan, source)), {
      backoff: HANDOFF_BACKOFF,
      isRunning: () => !this.stopped,
      logger: this.options.logger,
      context: { taskId: task.taskId, destinationId: task.destinationId, handoff: plan.handoff.outcome },
    });

    const { handoff } = plan;
    metrics.deliveries.inc({ destination_id: task.destinationId, outcome: handoff.outcome });
    if (handoff.outcome === 'delivered')
      metrics.endToEndSeconds.observe((clock.now() - task.receivedAtMs) / 1_000);
    if (handoff.outcome === 'dead_lettered') metrics.deadLettered.inc({ reason: handoff.reason });
    if (handoff.outcome === 'retry_scheduled')
      metrics.retriesScheduled.inc({ tier: formatDelay(handoff.tierDelayMs) });
  };

  /**
   * Backpressure: hands a task that its destination's lane has no room for to the first delay
   * topic, unattempted (attempt count untouched). A task that would wait past the cutoff (counted
   * from `cutoffClockStartMs`: its first attempt, else its redrive or replay, else its receipt) is
   * dead-lettered with `retry_cutoff`.
   */
  readonly defer = async (task: DeliveryTask): Promise<void> => {
    const { retryPolicy, clock } = this.options;
    const delayMs = retryPolicy.scheduleMs[0]!;
    const dueAtMs = clock.now() + delayMs;
    // Work waiting for a rate limit is never dead-lettered for it.
    if (
      this.rateOf(task.destinationId) === undefined &&
      dueAtMs > cutoffClockStartMs(task) + retryPolicy.cutoffMs
    )
      return this.deadLetter(task, 'retry_cutoff');
    await this.options.producer.send([this.delayed(task, delayMs, dueAtMs)]);
    this.options.metrics.deliveries.inc({ destination_id: task.destinationId, outcome: 'deferred' });
  };

  /** The destination's `maxRequestsPerSecond`, if it has one. */
  readonly rateOf = (destinationId: string): number | undefined =>
    this.options.catalog.destination(destinationId)?.settings.maxRequestsPerSecond;

  /**
   * A due task of a rate-limited destination, read from a delay topic, goes back to
   * `hookline.deliveries` (keyed by the destination alone) instead of being attempted here: every
   * request to that destination is then made by the one worker that owns its partition, which
   * paces them. Resolves true when the task was forwarded so.
   */
  readonly forward = async (task: DeliveryTask): Promise<boolean> => {
    if (this.rateOf(task.destinationId) === undefined) return false;
    await this.options.producer.send([
      {
        topic: this.options.deliveriesTopic,
        key: taskKey(task, { rateLimited: true }),
        value: encodeTask(this.options.avro, task),
      },
    ]);
    return true;
  };

  /**
   * A task back from a delay topic before its due time (a Retry-After longer than the last step):
   * parked again, without an attempt, in the step that brings it closest to that time.
   */
  readonly repark = async (task: DeliveryTask): Promise<void> => {
    const dueAtMs = task.dueAtMs!;
    const stepMs = parkingStep(this.options.retryPolicy.scheduleMs, this.options.clock.now(), dueAtMs);
    await this.options.producer.send([this.delayed(task, stepMs, dueAtMs)]);
    this.options.metrics.deliveries.inc({ destination_id: task.destinationId, outcome: 'deferred' });
  };

  /**
   * The destination is disabled: its tasks wait in the delay topics, a step further each time, and
   * resume once it is enabled again; past the cutoff they are dead-lettered.
   */
  private async pause(task: DeliveryTask): Promise<void> {
    const { retryPolicy, clock } = this.options;
    const nowMs = clock.now();
    const step = pauseStep({
      policy: retryPolicy,
      pausedTimes: timesPaused(task),
      startedAtMs: cutoffClockStartMs(task),
      nowMs,
    });
    if (step.kind === 'dead-letter') return this.deadLetter(task, step.reason);
    const paused: DeliveryTask = {
      ...task,
      history: [
        ...task.history,
        { atMs: nowMs, durationMs: 0, urlIndex: 0, result: 'deferred', error: PAUSED_ERROR },
      ],
    };
    await this.options.producer.send([this.delayed(paused, step.delayMs, nowMs + step.delayMs)]);
    this.options.metrics.deliveries.inc({ destination_id: task.destinationId, outcome: 'deferred' });
  }

  private async deadLetter(task: DeliveryTask, reason: string): Promise<void> {
    await this.options.deadLetters.task(task, reason);
    this.options.metrics.deadLettered.inc({ reason });
    this.options.metrics.deliveries.inc({ destination_id: task.destinationId, outcome: 'dead_lettered' });
  }

  /**
   * The settings in plaintext, or undefined when a value cannot be opened (sealed with a key this
   * process lacks, or corrupt): the task is then dead-lettered, redrivable once the key is fixed.
   */
  private openSettings(
    task: DeliveryTask,
    stored: Destination['settings'],
  ): { settings: OpenedSettings; standardWebhooksKeys: Buffer[] } | undefined {
    try {
      const settings = this.options.secrets.open(stored);
      const nowMs = this.options.clock.now();
      return {
        settings,
        standardWebhooksKeys: standardWebhooksKeysAt(settings, nowMs, this.options.rotationOverlapMs),
      };
    } catch (err) {
      if (!(err instanceof SecretUnreadableError)) throw err;
      this.options.logger.error(
        { destinationId: task.destinationId, code: err.code, reason: err.message },
        'cannot open the destination secrets: is HOOKLINE_SECRETS_KEY the same on every process?',
      );
      return undefined;
    }
  }

  /** The attempt record, plus the task in its delay topic or the dead-letter topic. */
  private handoffMessages({ task, handoff, attempt }: HandoffPlan, source?: string): OutgoingMessage[] {
    const messages: OutgoingMessage[] = [
      {
        topic: this.options.attemptsTopic,
        key: task.destinationId,
        value: encodeAttempt(this.options.avro, attempt),
        ...(handoff.outcome === 'delivered' && source && { headers: { [DELIVERED_FROM_HEADER]: source } }),
      },
    ];
    if (handoff.outcome === 'retry_scheduled')
      messages.push(this.delayed(task, handoff.tierDelayMs, handoff.dueAtMs));
    if (handoff.outcome === 'dead_lettered')
      messages.push(this.options.deadLetters.taskMessage(task, handoff.reason));
    return messages;
  }

  /**
   * The task in the delay topic of `delayMs`. The header is when the record is due in that topic
   * (its records are due in the order they were written); the task's `dueAtMs` is when it may be
   * attempted, later when a Retry-After is longer than the step.
   */
  private delayed(task: DeliveryTask, delayMs: number, dueAtMs: number): OutgoingMessage {
    return {
      topic: retryTopic(this.options.topicPrefix, delayMs),
      key: taskKey(task),
      value: encodeTask(this.options.avro, { ...task, dueAtMs }),
      headers: dueAtHeader(Math.min(dueAtMs, this.options.clock.now() + delayMs)),
    };
  }
}
