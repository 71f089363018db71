import type { AvroCodec } from '../avro/codec';
import type { RetryPolicy } from '../config/retry';
import type { Clock } from '../core/clock';
import type { BatchingProducer, OutgoingMessage } from '../kafka/batching-producer';
import { formatDelay, retryTopic } from '../kafka/topics';
import type { Logger } from '../observability/logger';
import type { CatalogView, Destination } from '../records/catalog-model';
import type { DeadLetterWriter } from '../records/dead-letter';
import { encodeAttempt } from '../records/delivery-attempt';
import { encodeTask, taskKey, type DeliveryTask } from '../records/delivery-task';
import { deliverToDestination, type DeliveryOutcome } from './failover';
import { planHandoff, type HandoffPlan } from './handoff';
import type { WebhookClient } from './http/client';
import type { DeliveryMetrics } from './metrics';
import { standardWebhooksKeysAt, type OpenedSettings, type SettingsOpener } from './secrets';
import { SecretUnreadableError } from '../security/secrets';
import { webhookIdFor } from './http/standard-webhooks';
import { dueAtHeader } from './retry/due-header';

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
  metrics: DeliveryMetrics;
  clock: Clock;
  logger: Logger;
}

/**
 * Attempts one task and hands it on, returning only once that hand-off is durable:
 * delivered → an attempt record; retriable failure → the task in its delay topic; otherwise →
 * the task in the dead-letter topic with the reason. The same path serves first attempts and
 * retries. What goes where is decided by `planHandoff` (pure); this class does the I/O.
 */
export class DeliveryExecutor {
  constructor(private readonly options: DeliveryExecutorOptions) {}

  readonly execute = async (task: DeliveryTask): Promise<void> => {
    const { catalog, metrics, clock } = this.options;
    const destination = catalog.destination(task.destinationId);
    if (!destination || !destination.enabled) {
      await this.deadLetter(task, destination ? 'destination_disabled' : 'destination_deleted');
      return;
    }
    const opened = this.openSettings(task, destination.settings);
    if (!opened) {
      await this.deadLetter(task, 'secret_unreadable');
      return;
    }
    const { settings, standardWebhooksKeys } = opened;

    const startedAtMs = clock.now();
    metrics.inFlight.inc();
    let outcome: DeliveryOutcome;
    try {
      outcome = await deliverToDestination({
        client: this.options.client,
        destination: { settings },
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

    const plan = planHandoff({
      task,
      outcome,
      policy: this.options.retryPolicy,
      startedAtMs,
      nowMs: clock.now(),
    });
    await this.options.producer.send(this.handoffMessages(plan));

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
   * topic, unattempted (attempt count and cutoff clock untouched).
   */
  readonly defer = async (task: DeliveryTask): Promise<void> => {
    const delayMs = this.options.retryPolicy.scheduleMs[0]!;
    await this.options.producer.send([this.delayed(task, delayMs, this.options.clock.now() + delayMs)]);
    this.options.metrics.deliveries.inc({ destination_id: task.destinationId, outcome: 'deferred' });
  };

  private async deadLetter(task: DeliveryTask, reason: string): Promise<void> {
    const { metrics } = this.options;
    await this.options.deadLetters.task(task, reason);
    metrics.deadLettered.inc({ reason });
    metrics.deliveries.inc({ destination_id: task.destinationId, outcome: 'dead_lettered' });
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

  /** The attempt record, plus the task in its delay topic or the dead-letter topic. */
  private handoffMessages({ task, handoff, attempt }: HandoffPlan): OutgoingMessage[] {
    const messages: OutgoingMessage[] = [
      {
        topic: this.options.attemptsTopic,
        key: task.destinationId,
        value: encodeAttempt(this.options.avro, attempt),
      },
    ];
    if (handoff.outcome === 'retry_scheduled')
      messages.push(this.delayed(task, handoff.tierDelayMs, handoff.dueAtMs));
    if (handoff.outcome === 'dead_lettered')
      messages.push(this.options.deadLetters.taskMessage(task, handoff.reason));
    return messages;
  }

  private delayed(task: DeliveryTask, delayMs: number, dueAtMs: number): OutgoingMessage {
    return {
      topic: retryTopic(this.options.topicPrefix, delayMs),
      key: taskKey(task),
      value: encodeTask(this.options.avro, { ...task, dueAtMs }),
      headers: dueAtHeader(dueAtMs),
    };
  }
}
