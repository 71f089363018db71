import type { AvroCodec } from '../avro/codec';
import type { CatalogView } from '../records/catalog-model';
import type { Clock } from '../core/clock';
import { serialisePayload } from './payload';
import type { DeadLetterWriter } from '../records/dead-letter';
import { encodeTask, taskId, taskKey, type DeliveryTask } from '../records/delivery-task';
import { UndecodableRecordError } from '../core/errors';
import type { EventCodec, FreeFormTexts } from '../records/event';
import { eventKey, type HooklineEvent } from '../events/types';
import type { BatchingProducer } from '../kafka/batching-producer';
import type { ConsumedMessage } from '../kafka/consumer';
import type { DoneBefore } from '../kafka/consumer-options';
import type { Logger } from '../observability/logger';
import type { DedupeWindow } from './dedupe';
import type { FirstAttempts } from './first-attempts';
import { destinationsFor } from './integrations';
import type { RouterMetrics } from './metrics';

export interface EventRouterOptions {
  catalog: CatalogView;
  events: EventCodec;
  avro: AvroCodec;
  producer: BatchingProducer;
  deadLetters: DeadLetterWriter;
  dedupe: DedupeWindow;
  deliveriesTopic: string;
  /**
   * Set when this process also delivers: an event's tasks are attempted here, not written to
   * `hookline.deliveries` (but those of rate-limited destinations, paced by one worker each).
   */
  firstAttempts?: FirstAttempts;
  metrics: RouterMetrics;
  clock: Clock;
  logger: Logger;
}

/** Where an event's tasks go, and what of its record comes along. */
interface FanOutTarget {
  /** A replay to one destination: only its task, and no de-duplication. */
  onlyDestinationId?: string;
  /** A replay: when it made the tasks, their cutoff clock's start (`DeliveryTask.reissuedAtMs`). */
  reissuedAtMs?: number;
  /** The JSON text of the event's free-form objects as its record holds it (see serialisePayload). */
  texts?: FreeFormTexts;
  /** The event's record, when its tasks may be attempted in this process (FirstAttempts). */
  consumed?: ConsumedMessage;
}

/**
 * Routes one event: decides which destinations get it and writes one delivery task per
 * destination to `hookline.deliveries`, keyed by destination and user, or, in a process that
 * also delivers, hands the tasks to its lanes (FirstAttempts). Resolves only when those tasks are
 * on Kafka or done, so the caller may then commit the event's offset.
 */
export class EventRouter {
  constructor(private readonly options: EventRouterOptions) {}

  /** Its consumer's `doneBefore`, when it makes first attempts (FirstAttempts.takeOver). */
  get takeOver(): DoneBefore | undefined {
    return this.options.firstAttempts?.takeOver;
  }

  readonly handle = async (consumed: ConsumedMessage): Promise<void> => {
    const { metrics, firstAttempts } = this.options;
    const left = firstAttempts?.leftOf(consumed);
    if (firstAttempts && left) return firstAttempts.run(consumed, left); // routed: what failed
    let decoded: { event: HooklineEvent; texts: FreeFormTexts };
    try {
      if (!consumed.message.value) throw new UndecodableRecordError('empty record value');
      decoded = await this.options.events.decodeWithTexts(consumed.message.value);
    } catch (err) {
      if (!(err instanceof UndecodableRecordError)) throw err; // registry down: retried
      this.options.logger.warn(
        {
          topic: consumed.topic,
          partition: consumed.partition,
          offset: consumed.message.offset,
          reason: err.message,
        },
        'undecodable event dead-lettered',
      );
      await this.options.deadLetters.undecodable(consumed, err.message);
      metrics.events.inc({ outcome: 'undecodable' });
      return;
    }
    await this.claimAndFanOut(decoded.event, { texts: decoded.texts, consumed });
  };

  /**
   * Replays an event to `onlyDestinationId` alone, without de-duplication. Its task keeps the
   * event's `receivedAt`, and its cutoff clock starts now (a replay of an old event is not
   * dead-lettered for its age before an attempt).
   */
  route(event: HooklineEvent, onlyDestinationId: string): Promise<number> {
    return this.claimAndFanOut(event, { onlyDestinationId, reissuedAtMs: this.options.clock.now() });
  }

  /** De-duplicates (unless routing to one destination), then fans out; a failure undoes the claim. */
  private async claimAndFanOut(event: HooklineEvent, target: FanOutTarget): Promise<number> {
    const { dedupe, metrics } = this.options;
    const dedupeKey = `${event.sourceId}:${event.messageId}`;
    const claimed = target.onlyDestinationId === undefined;
    if (claimed && !dedupe.claim(dedupeKey)) {
      metrics.events.inc({ outcome: 'duplicate' });
      return 0;
    }
    try {
      return await this.fanOut(event, target);
    } catch (err) {
      // Not (wholly) routed: a redelivery must not count as a duplicate.
      if (claimed) dedupe.release(dedupeKey);
      throw err;
    }
  }

  private async fanOut(
    event: HooklineEvent,
    { onlyDestinationId, reissuedAtMs, texts, consumed }: FanOutTarget,
  ): Promise<number> {
    const { catalog, metrics, firstAttempts } = this.options;
    let destinations = destinationsFor(event, catalog.destinationsOfSource(event.sourceId));
    if (onlyDestinationId !== undefined)
      destinations = destinations.filter((d) => d.id === onlyDestinationId);
    if (destinations.length > 0) {
      const payload = serialisePayload(event, texts);
      const userKey = eventKey(event);
      const rateLimited = new Set(
        destinations.filter((d) => d.settings.maxRequestsPerSecond !== undefined).map((d) => d.id),
      );
      const tasks: DeliveryTask[] = destinations.map((d) => ({
        taskId: taskId(event.sourceId, event.messageId, d.id),
        destinationId: d.id,
        sourceId: event.sourceId,
        messageId: event.messageId,
        eventType: event.type,
        userKey,
        payload,
        receivedAtMs: Date.parse(event.receivedAt),
        attempts: 0,
        history: [],
      }));
      if (reissuedAtMs !== undefined) for (const task of tasks) task.reissuedAtMs = reissuedAtMs;
      const direct = consumed && firstAttempts;
      const here = direct ? tasks.filter((t) => !rateLimited.has(t.destinationId)) : [];
      const written = here.length > 0 ? tasks.filter((t) => rateLimited.has(t.destinationId)) : tasks;
      if (written.length > 0)
        await this.options.producer.send(
          written.map((task) => ({
            topic: this.options.deliveriesTopic,
            key: taskKey(task, { rateLimited: rateLimited.has(task.destinationId) }),
            value: encodeTask(this.options.avro, task),
          })),
        );
      metrics.tasks.inc(tasks.length);
      metrics.events.inc({ outcome: 'routed' });
      if (direct && here.length > 0) await firstAttempts.run(consumed, here);
    } else metrics.events.inc({ outcome: 'filtered' });
    return destinations.length;
  }
}
