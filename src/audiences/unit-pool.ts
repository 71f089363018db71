import type { Logger } from '../observability/logger';
import { errorMessage } from '../core/errors';
import type { TopicOffset } from './progress';
import type { PartitionUnit } from './unit';

export interface UnitPoolOptions {
  /** Opens the unit of a partition (its state loaded from the state topic). */
  open(partition: number): Promise<PartitionUnit>;
  /**
   * Sends the group's consumer of a partition back to `offsets` (kafkajs `seek`): the inputs a
   * closed unit had applied and not committed must be read again.
   */
  rewind(partition: number, offsets: TopicOffset[]): void;
  logger: Logger;
}

/**
 * The partition units of one processor: opened on demand, one piece of work at a time per
 * partition. A unit whose work failed holds state that may not be committed: it is closed (its
 * store thrown away) and the consumer rewound to its last commit, so the inputs applied since are
 * applied again, on the state as committed, by the unit opened next.
 */
export class UnitPool {
  private readonly units = new Map<number, PartitionUnit>();
  private readonly locks = new Map<number, Promise<void>>();
  closed = false;

  constructor(private readonly options: UnitPoolOptions) {}

  /** Runs work on a partition's unit, opened if needed. */
  withUnit(partition: number, work: (unit: PartitionUnit) => Promise<void>): Promise<void> {
    return this.locked(partition, async () => {
      if (this.closed) return;
      let unit = this.units.get(partition);
      if (!unit) {
        unit = await this.options.open(partition);
        this.units.set(partition, unit);
      }
      await this.guarded(partition, unit, work);
    });
  }

  /** Runs work on a partition's unit if it is open (never opens one). */
  ifOpen(partition: number, work: (unit: PartitionUnit) => Promise<void>): Promise<void> {
    return this.locked(partition, async () => {
      const unit = this.units.get(partition);
      if (unit) await this.guarded(partition, unit, work);
    });
  }

  /** Closes a partition's unit after the work queued on it; what it did not commit is dropped. */
  close(partition: number): Promise<void> {
    return this.locked(partition, () => this.closeNow(partition));
  }

  /** Every partition with an open unit or work queued (a unit being opened is not in `units` yet). */
  partitions(): number[] {
    return [...new Set([...this.units.keys(), ...this.locks.keys()])];
  }

  /** Partitions with an open unit. */
  open(): number[] {
    return [...this.units.keys()];
  }

  private async guarded(
    partition: number,
    unit: PartitionUnit,
    work: (unit: PartitionUnit) => Promise<void>,
  ): Promise<void> {
    try {
      await work(unit);
    } catch (err) {
      // Memory may hold applied inputs and a half-done step that were not committed: reload.
      const offsets = unit.progress.rewind();
      await this.closeNow(partition);
      if (offsets.length > 0) {
        try {
          this.options.rewind(partition, offsets);
        } catch (seekErr) {
          // The consumer is not running: when it runs again it starts from the committed offsets.
          this.options.logger.warn({ partition, err: errorMessage(seekErr) }, 'audience rewind failed');
        }
      }
      throw err;
    }
  }

  private async closeNow(partition: number): Promise<void> {
    const unit = this.units.get(partition);
    this.units.delete(partition);
    await unit?.close();
  }

  private locked(partition: number, work: () => Promise<void>): Promise<void> {
    const previous = this.locks.get(partition) ?? Promise.resolve();
    const current = previous.then(work, work);
    const settled = current.catch(() => undefined);
    this.locks.set(partition, settled);
    void settled.then(() => {
      if (this.locks.get(partition) === settled) this.locks.delete(partition);
    });
    return current;
  }
}
