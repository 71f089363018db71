import type { DeliveryTask } from '../records/delivery-task';
import type { DlqRecord, UndecodableCopy } from '../records/dlq';
import { positionKey, type RecordPosition } from '../kafka/positions';

/** A delivery task given up, as it stands on the dead-letter topic. */
export interface TaskDeadLetter {
  kind: 'task';
  position: RecordPosition;
  task: DeliveryTask;
}

/** A record that could not be decoded; listed, never redriven. */
export interface UndecodableDeadLetter {
  kind: 'undecodable';
  position: RecordPosition;
  copy: UndecodableCopy;
}

export type DeadLetter = TaskDeadLetter | UndecodableDeadLetter;

/** All optional; times compare with deadLetteredAt, `since` inclusive, `until` exclusive. */
export interface DeadLetterFilter {
  destinationId?: string;
  sinceMs?: number;
  untilMs?: number;
  /** Only these task ids. */
  taskIds?: ReadonlySet<string>;
}

/** The id a dead letter is shown and fetched by: its task id, or `undecodable:<partition>:<offset>`. */
export function deadLetterId(entry: DeadLetter): string {
  return entry.kind === 'task' ? entry.task.taskId : `undecodable:${positionKey(entry.position)}`;
}

export function deadLetteredAtMs(entry: DeadLetter): number {
  return entry.kind === 'task' ? (entry.task.deadLetteredAtMs ?? 0) : entry.copy.deadLetteredAtMs;
}

/** Newest first: by dead-letter time, then by position. */
export function newestFirst(a: DeadLetter, b: DeadLetter): number {
  return (
    deadLetteredAtMs(b) - deadLetteredAtMs(a) ||
    b.position.partition - a.position.partition ||
    Number(BigInt(b.position.offset) - BigInt(a.position.offset))
  );
}

export function matches(entry: DeadLetter, filter: DeadLetterFilter): boolean {
  const at = deadLetteredAtMs(entry);
  if (filter.sinceMs !== undefined && at < filter.sinceMs) return false;
  if (filter.untilMs !== undefined && at >= filter.untilMs) return false;
  if (filter.destinationId !== undefined || filter.taskIds !== undefined) {
    if (entry.kind !== 'task') return false;
    if (filter.destinationId !== undefined && entry.task.destinationId !== filter.destinationId) return false;
    if (filter.taskIds !== undefined && !filter.taskIds.has(entry.task.taskId)) return false;
  }
  return true;
}

/**
 * The dead-letter topic folded into memory: every dead letter in arrival order, and which ones
 * were redriven. A redrive marker names the dead letter by position, so a task dead-lettered
 * again after a redrive is a new, pending dead letter. Applying a record twice changes nothing.
 */
export class DlqState {
  private readonly entries: DeadLetter[] = [];
  private readonly positions = new Set<string>();
  private readonly byId = new Map<string, DeadLetter[]>();
  /** Position key → first redrive time. A marker may arrive before its dead letter (other partition). */
  private readonly redriven = new Map<string, number>();

  apply(position: RecordPosition, record: DlqRecord): void {
    if (record.kind === 'redriven') {
      this.markRedriven(record.marker.deadLetter, record.marker.redrivenAtMs);
      return;
    }
    const key = positionKey(position);
    if (this.positions.has(key)) return;
    this.positions.add(key);
    const entry: DeadLetter =
      record.kind === 'task'
        ? { kind: 'task', position, task: record.task }
        : { kind: 'undecodable', position, copy: record.copy };
    this.entries.push(entry);
    const id = deadLetterId(entry);
    const same = this.byId.get(id);
    if (same) same.push(entry);
    else this.byId.set(id, [entry]);
  }

  /** Keeps the first redrive time of a dead letter. */
  markRedriven(position: RecordPosition, atMs: number): void {
    const key = positionKey(position);
    const previous = this.redriven.get(key);
    if (previous === undefined || atMs < previous) this.redriven.set(key, atMs);
  }

  redrivenAtMs(entry: DeadLetter): number | undefined {
    return this.redriven.get(positionKey(entry.position));
  }

  /** Matching dead letters, newest first. */
  list(filter: DeadLetterFilter = {}): DeadLetter[] {
    return this.entries.filter((e) => matches(e, filter)).sort(newestFirst);
  }

  /** Every dead letter with this id, oldest first (a task can be dead-lettered more than once). */
  find(id: string): DeadLetter[] {
    return this.byId.get(id) ?? [];
  }

  /** Matching task dead letters not redriven yet, in arrival order. */
  pendingTasks(filter: DeadLetterFilter = {}): TaskDeadLetter[] {
    return this.entries.filter(
      (e): e is TaskDeadLetter =>
        e.kind === 'task' && this.redrivenAtMs(e) === undefined && matches(e, filter),
    );
  }

  counts(): { tasks: number; pendingTasks: number; undecodable: number } {
    let tasks = 0;
    let pendingTasks = 0;
    for (const e of this.entries) {
      if (e.kind !== 'task') continue;
      tasks++;
      if (this.redrivenAtMs(e) === undefined) pendingTasks++;
    }
    return { tasks, pendingTasks, undecodable: this.entries.length - tasks };
  }
}
