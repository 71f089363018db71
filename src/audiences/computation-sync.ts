import type { KafkaMessage } from 'kafkajs';
import type { Clock } from '../core/clock';
import { errorMessage } from '../core/errors';
import type { HooklineEvent } from '../events/types';
import type { Logger } from '../observability/logger';
import { createOnPartition, type CreationStepOptions } from './creation-step';
import type { Definitions } from './definitions';
import { Outbox, type ProcessorTime } from './partition';
import type { PartitionUnit } from './unit';
import type { UnitPool } from './unit-pool';

/** Users changed per transaction of the periodic sync. */
const SYNC_STEP_USERS = 10_000;
/** A catalog change or a rebalance is acted on this long after it, once for a burst of them. */
const SOON_MS = 50;

export interface ComputationSyncOptions {
  pool: UnitPool;
  /** The partitions this member owns. */
  assigned: () => readonly number[];
  /** The computations known now. */
  definitions: () => Definitions;
  time: () => ProcessorTime;
  /** Evaluates and commits what the unit applied since its last flush (the processor's). */
  flush: (unit: PartitionUnit) => Promise<void>;
  /** What a creation reads the history with. */
  creation: Omit<CreationStepOptions, 'decode' | 'time' | 'logger'>;
  decode: (m: KafkaMessage, partition: number) => Promise<HooklineEvent | undefined>;
  stopping: () => boolean;
  /** HOOKLINE_AUDIENCE_SYNC_INTERVAL: how often every user is evaluated again. */
  syncIntervalMs: number;
  clock: Clock;
  logger: Logger;
}

/**
 * Keeps each owned partition's computations those of the catalog: a new one is created (history
 * read, first members announced), a deleted one dropped, and every `syncIntervalMs` every user is
 * evaluated again (a window moving on changes membership with no event). Runs on a catalog
 * change, after a rebalance, and on the interval.
 */
export class ComputationSync {
  private timer: NodeJS.Timeout | undefined;
  private soonTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: ComputationSyncOptions) {}

  start(): void {
    this.timer = setInterval(() => void this.syncAll(), this.options.syncIntervalMs);
  }

  /** Syncs every owned partition shortly (a burst of calls syncs once). */
  soon(): void {
    if (this.soonTimer || this.options.stopping()) return;
    this.soonTimer = setTimeout(() => {
      this.soonTimer = undefined;
      void this.syncAll();
    }, SOON_MS);
  }

  stop(): void {
    clearInterval(this.timer);
    clearTimeout(this.soonTimer);
  }

  /**
   * Creates new computations on the partition (history read, first members announced), drops
   * deleted ones. A creation reads the state: what was applied before it is flushed first.
   */
  async reconcile(unit: PartitionUnit): Promise<void> {
    const defs = this.options.definitions();
    const dropped = new Outbox();
    unit.state.forget(defs, dropped);
    await unit.commit(dropped, this.options.clock.now());
    for (const computation of defs.all()) {
      if (unit.state.live.has(computation.id) || this.options.stopping()) continue;
      await this.options.flush(unit);
      await createOnPartition(unit, defs, computation, {
        ...this.options.creation,
        time: this.options.time,
        logger: this.options.logger,
        decode: (m) => this.options.decode(m, unit.state.partition),
      });
    }
  }

  /** Every owned partition in turn: reconciled, flushed, every user evaluated again. */
  private async syncAll(): Promise<void> {
    for (const p of this.options.assigned()) {
      if (this.options.stopping()) return;
      await this.options.pool
        .withUnit(p, async (unit) => {
          await this.reconcile(unit);
          await this.options.flush(unit);
          const time = this.options.time();
          for (const out of unit.state.resync(this.options.definitions(), time, SYNC_STEP_USERS))
            await unit.commit(out, time.nowMs);
        })
        .catch((err) =>
          this.options.logger.error(
            { partition: p, err: errorMessage(err) },
            'audience sync failed; retried next time',
          ),
        );
    }
  }
}
