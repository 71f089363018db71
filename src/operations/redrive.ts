import type { AvroCodec } from '../avro/codec';
import type { CatalogView } from '../records/catalog-model';
import type { Clock } from '../core/clock';
import { encodeTask, taskKey } from '../records/delivery-task';
import type { BatchingProducer } from '../kafka/batching-producer';
import type { Logger } from '../observability/logger';
import { encodeRedriven } from '../records/dlq';
import type { TaskDeadLetter } from './dead-letters/dead-letter';
import type { DlqStore } from './dead-letters/store';
import { DlqIndexLoadingError } from './errors';
import type { OperationsMetrics } from './metrics';
import {
  freshTask,
  planRedrive,
  type DestinationStatus,
  type RedriveRequest,
  type RedrivePlan,
} from './redrive-plan';

export interface RedriverOptions {
  state: DlqStore;
  /** Whether the dead-letter index has caught up (otherwise markers could be missed). */
  ready: () => boolean;
  catalog: CatalogView;
  producer: BatchingProducer;
  avro: AvroCodec;
  deliveriesTopic: string;
  dlqTopic: string;
  metrics: OperationsMetrics;
  clock: Clock;
  logger: Logger;
  /** Tasks per produce call (500). */
  chunkSize?: number;
}

export interface RedriveResult {
  redriven: number;
  taskIds: string[];
  skipped: RedrivePlan['skipped'];
}

/**
 * Redrives dead letters: writes each chosen task as a fresh task to the deliveries topic (keyed
 * like the router does), and only once Kafka has it, a Redriven marker per dead letter to the
 * dead-letter topic, applied locally at once. A failure between the two leaves the dead letter
 * pending, so a redrive is at-least-once, never lost. Redrives of one process run one at a time;
 * two processes redriving the same dead letters at the same moment may both send them (receivers
 * de-duplicate on messageId).
 */
export class Redriver {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly chunkSize: number;

  constructor(private readonly options: RedriverOptions) {
    this.chunkSize = options.chunkSize ?? 500;
  }

  redrive(request: RedriveRequest): Promise<RedriveResult> {
    if (!this.options.ready()) return Promise.reject(new DlqIndexLoadingError());
    const run = this.queue.then(() => this.run(request));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async run(request: RedriveRequest): Promise<RedriveResult> {
    const { state, catalog, logger } = this.options;
    const plan = await planRedrive(state, request, (id) => destinationStatus(catalog, id));
    for (let i = 0; i < plan.send.length; i += this.chunkSize) {
      const chunk = plan.send.slice(i, i + this.chunkSize);
      const ids = new Set(chunk.map((e) => e.task.taskId));
      await this.write(
        chunk,
        plan.mark.filter((e) => ids.has(e.task.taskId)),
      );
    }
    const taskIds = plan.send.map((e) => e.task.taskId);
    const { destinationId, sinceMs, untilMs } = request;
    logger.info(
      {
        destinationId,
        sinceMs,
        untilMs,
        taskIdsAsked: request.taskIds?.length,
        redriven: taskIds.length,
        skipped: plan.skipped.length,
      },
      'dead letters redriven',
    );
    return { redriven: taskIds.length, taskIds, skipped: plan.skipped };
  }

  private async write(send: TaskDeadLetter[], mark: TaskDeadLetter[]): Promise<void> {
    const { producer, avro, state, metrics, clock } = this.options;
    const reissuedAtMs = clock.now();
    await producer.send(
      send.map(({ task }) => ({
        topic: this.options.deliveriesTopic,
        key: taskKey(task, {
          rateLimited:
            this.options.catalog.destination(task.destinationId)?.settings.maxRequestsPerSecond !== undefined,
        }),
        value: encodeTask(avro, freshTask(task, reissuedAtMs)),
      })),
    );
    const redrivenAtMs = clock.now();
    await producer.send(
      mark.map(({ task, position }) => ({
        topic: this.options.dlqTopic,
        key: taskKey(task),
        value: encodeRedriven(avro, { taskId: task.taskId, deadLetter: position, redrivenAtMs }),
      })),
    );
    for (const { position } of mark) state.markRedriven(position, redrivenAtMs);
    for (const { task } of send) metrics.redriven.inc({ destination_id: task.destinationId });
  }
}

export function destinationStatus(catalog: CatalogView, destinationId: string): DestinationStatus {
  const destination = catalog.destination(destinationId);
  return !destination ? 'deleted' : destination.enabled ? 'enabled' : 'disabled';
}
