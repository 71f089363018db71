import { randomBytes } from 'node:crypto';
import type { Admin, Kafka } from 'kafkajs';
import { CatalogNotFoundError } from '../catalog';
import type { CatalogView } from '../records/catalog-model';
import type { Clock } from '../core/clock';
import { UndecodableRecordError, errorMessage } from '../core/errors';
import type { EventCodec } from '../records/event';
import type { HooklineEvent } from '../events/types';
import type { Logger } from '../observability/logger';
import {
  DestinationDisabledError,
  OperationsStoppedError,
  ReplayNotFoundError,
  ReplayRunningError,
  TooManyReplaysError,
} from './errors';
import { startFollower, type FollowedRecord, type Follower } from '../kafka/follower';
import type { OperationsMetrics } from './metrics';
import { rangeSize } from '../kafka/positions';
import { retryTransient } from '../core/backoff';
import type { ReplayProgress } from '../records/replay';
import type { ReplayBoard } from './replay-board';

/** What a replay needs of the router: EventRouter.route, which bypasses de-duplication for one destination. */
export interface ReplayRouter {
  route(event: HooklineEvent, onlyDestinationId: string): Promise<number>;
}

export type { ReplayProgress, ReplayState } from '../records/replay';

export interface ReplaysOptions {
  kafka: Kafka;
  admin: Admin;
  catalog: CatalogView;
  events: EventCodec;
  router: ReplayRouter;
  /** Where progress is shared with every other process. */
  board: ReplayBoard;
  /** `<prefix>.events`. */
  eventsTopic: string;
  /** Base of each replay's private consumer group id. */
  clientId: string;
  metrics: OperationsMetrics;
  clock: Clock;
  logger: Logger;
  /** Replays running at once on this process (4). */
  maxRunning?: number;
  /** Finished replays remembered for GET /replays/{id} (100); the oldest are forgotten first. */
  maxKept?: number;
}

interface Replay {
  progress: ReplayProgress;
  follower?: Follower;
}

/**
 * Replays of the events topic to one destination: from the first event written at or after
 * `since` (Kafka record time) up to the high watermarks observed when the replay starts, each
 * event decoded and routed again to that destination only (events of other sources, or that its
 * integrations settings exclude, write nothing). Progress is kept in memory by the process that
 * runs the replay. One replay of a destination runs at a time, across processes (as far as the
 * shared progress of `ReplayBoard` tells): another would deliver the events twice.
 */
export class Replays {
  private readonly replays = new Map<string, Replay>();
  private stopping = false;

  constructor(private readonly options: ReplaysOptions) {}

  /** Starts a replay in the background and returns its initial progress. */
  start(destinationId: string, sinceMs: number): ReplayProgress {
    if (this.stopping) throw new OperationsStoppedError();
    const destination = this.options.catalog.destination(destinationId);
    if (!destination) throw new CatalogNotFoundError('destination', destinationId);
    if (!destination.enabled) throw new DestinationDisabledError(destinationId);
    // A second replay of the destination would send the events of both ranges twice.
    const already =
      [...this.replays.values()].find(
        (r) => r.progress.state === 'running' && r.progress.destinationId === destinationId,
      )?.progress ?? this.options.board.runningFor(destinationId);
    if (already) throw new ReplayRunningError(destinationId, already.id);
    const running = [...this.replays.values()].filter((r) => r.progress.state === 'running').length;
    if (running >= (this.options.maxRunning ?? 4)) throw new TooManyReplaysError(running);

    const replay: Replay = {
      progress: {
        id: `rpl_${randomBytes(8).toString('hex')}`,
        destinationId,
        sinceMs,
        state: 'running',
        eventsRead: 0,
        eventsSkipped: 0,
        tasksWritten: 0,
        startedAtMs: this.options.clock.now(),
      },
    };
    this.replays.set(replay.progress.id, replay);
    this.forgetOld();
    void this.run(replay);
    void this.publish(replay.progress, true);
    return { ...replay.progress };
  }

  /** A replay's progress, whichever process runs it (this one's own is the freshest). */
  get(id: string): ReplayProgress {
    const replay = this.replays.get(id);
    if (replay) return { ...replay.progress };
    const shared = this.options.board.get(id);
    if (!shared) throw new ReplayNotFoundError(id);
    return { ...shared };
  }

  /** Stops every running replay (state `stopped`). */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all([...this.replays.values()].map((r) => r.follower?.stop()));
  }

  private async run(replay: Replay): Promise<void> {
    const { progress } = replay;
    const logger = this.options.logger.child({
      replayId: progress.id,
      destinationId: progress.destinationId,
    });
    try {
      replay.follower = await startFollower({
        kafka: this.options.kafka,
        admin: this.options.admin,
        topic: this.options.eventsTopic,
        groupIdPrefix: `${this.options.clientId}-replay`,
        sinceMs: progress.sinceMs,
        bounded: true,
        logger,
        handleBatch: (records) => this.routeBatch(progress, records, logger),
      });
      progress.eventsTotal = rangeSize(replay.follower.ranges);
      if (this.stopping) await replay.follower.stop();
      await replay.follower.whenCaughtUp();
      progress.state = 'done';
    } catch (err) {
      progress.state = this.stopping ? 'stopped' : 'failed';
      progress.error = errorMessage(err);
    } finally {
      await replay.follower?.stop();
      progress.finishedAtMs = this.options.clock.now();
      logger.info({ ...progress }, `replay ${progress.state}`);
      await this.publish(progress, true);
    }
  }

  /** Decodes a batch (in order), then routes all of it; the routes' writes are queued in order. */
  private async routeBatch(
    progress: ReplayProgress,
    records: FollowedRecord[],
    logger: Logger,
  ): Promise<void> {
    const events: HooklineEvent[] = [];
    for (const record of records) {
      const event = await this.decode(record, logger);
      if (event) events.push(event);
      else progress.eventsSkipped++;
    }
    const written = await Promise.all(
      events.map((e) => this.options.router.route(e, progress.destinationId)),
    );
    const tasks = written.reduce((n, w) => n + w, 0);
    progress.eventsRead += records.length;
    progress.tasksWritten += tasks;
    await this.publish(progress);
    if (tasks > 0) this.options.metrics.replayedTasks.inc({ destination_id: progress.destinationId }, tasks);
  }

  private async decode(record: FollowedRecord, logger: Logger): Promise<HooklineEvent | undefined> {
    const bytes = record.value;
    if (!bytes) return undefined;
    try {
      return await retryTransient(() => this.options.events.decode(bytes), {
        isRunning: () => !this.stopping,
        logger,
        context: { partition: record.partition, offset: record.offset },
      });
    } catch (err) {
      if (!(err instanceof UndecodableRecordError)) throw err;
      return undefined;
    }
  }

  /** Shares progress with the other processes; a failure to do so never fails the replay. */
  private async publish(progress: ReplayProgress, force = false): Promise<void> {
    try {
      await this.options.board.publish({ ...progress }, force);
    } catch (err) {
      this.options.logger.warn(
        { replayId: progress.id, reason: errorMessage(err) },
        'replay progress not shared',
      );
    }
  }

  private forgetOld(): void {
    const maxKept = this.options.maxKept ?? 100;
    for (const [id, replay] of this.replays) {
      if (this.replays.size <= maxKept) break;
      if (replay.progress.state !== 'running') this.replays.delete(id);
    }
  }
}
