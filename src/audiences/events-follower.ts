import type { Admin, Consumer } from 'kafkajs';
import type { Clock } from '../core/clock';
import { errorMessage } from '../core/errors';
import type { Logger } from '../observability/logger';
import type { Definitions } from './definitions';
import type { PartitionUnit } from './unit';
import type { UnitPool } from './unit-pool';

export interface EventsFollowerOptions {
  consumer: Pick<Consumer, 'pause' | 'resume' | 'seek'>;
  admin: Pick<Admin, 'fetchTopicOffsets'>;
  pool: UnitPool;
  /** hookline.events. */
  eventsTopic: string;
  evaluateIntervalMs: number;
  /** The computations known now. */
  definitions: () => Definitions;
  /** The partitions this member owns. */
  assigned: () => readonly number[];
  /** Evaluates and commits what the unit applied since its last flush (the processor's). */
  flush: (unit: PartitionUnit) => Promise<void>;
  stopping: () => boolean;
  clock: Clock;
  logger: Logger;
}

/**
 * With no audience or computed trait anywhere and no user state kept, no event can change
 * anything. Then hookline.events is not fetched at all: on a deployment without audiences that
 * second read of every event was the role's whole cost (6–8% of the end-to-end rate in the
 * bench). Instead, each owned partition's position moves to the topic's end, as reading the
 * events and skipping them would move it, and is committed as often (by the evaluation
 * interval's flush): the group's lag stays what it was. Once a computation exists, its creation
 * reads the history up to that position, and the consumer goes on from it.
 */
export class EventsFollower {
  /** hookline.events is not fetched: nothing could change. */
  private paused = false;

  constructor(private readonly options: EventsFollowerOptions) {}

  /** Pauses hookline.events again on a consumer that forgot it (one restarted after a crash). */
  pauseAgain(): void {
    if (this.paused) this.options.consumer.pause([{ topic: this.options.eventsTopic }]);
  }

  /** Follows the end of hookline.events, or reads it again once something could change. Never throws. */
  follow(): Promise<void> {
    return this.followEvents().catch((err) =>
      this.options.logger.error({ err: errorMessage(err) }, 'following hookline.events failed; tried again'),
    );
  }

  private async followEvents(): Promise<void> {
    const { eventsTopic: topic, admin, pool, logger } = this.options;
    if (this.options.stopping()) return;
    if (this.computing()) return this.resume();
    let ends: Map<number, string>;
    try {
      ends = new Map((await admin.fetchTopicOffsets(topic)).map((w) => [w.partition, w.high]));
    } catch (err) {
      logger.warn({ err: errorMessage(err) }, 'could not read the end of hookline.events; tried again');
      return;
    }
    let stateLeft = false;
    for (const p of this.options.assigned()) {
      await pool
        .withUnit(p, async (unit) => {
          if (this.options.stopping() || this.computing()) return;
          if (unit.state.users.size > 0) {
            stateLeft = true;
            return;
          }
          const end = ends.get(p);
          if (end === undefined) return;
          const nowMs = this.options.clock.now();
          unit.progress.applied(topic, end, nowMs, false);
          if (unit.progress.due(nowMs, this.options.evaluateIntervalMs)) await this.options.flush(unit);
        })
        .catch((err) =>
          logger.error({ partition: p, err: errorMessage(err) }, 'audience position not moved; tried again'),
        );
    }
    if (this.options.stopping()) return;
    // User state left behind (it should not outlive its computations): the events are read.
    if (stateLeft || this.computing()) return this.resume();
    if (!this.paused) {
      this.options.consumer.pause([{ topic }]);
      this.paused = true;
      logger.info('no audience or computed trait: hookline.events is not read until one exists');
    }
  }

  private computing(): boolean {
    return this.options.definitions().all().length > 0;
  }

  /** Reads hookline.events again, from each open unit's position (moved on while it was not read). */
  private async resume(): Promise<void> {
    if (!this.paused) return;
    this.paused = false;
    const { consumer, pool, eventsTopic: topic } = this.options;
    for (const p of pool.open())
      await pool.ifOpen(p, async (unit) => {
        consumer.seek({ topic, partition: p, offset: unit.position });
      });
    consumer.resume([{ topic }]);
    this.options.logger.info('hookline.events is read again');
  }
}
