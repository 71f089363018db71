import type { DeliveryTask } from '../../records/delivery-task';
import type { UndecodableCopy } from '../../records/dlq';
import { positionKey, type RecordPosition } from '../../kafka/positions';

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

/** A dead letter as the index answers it: with its first redrive time once redriven. */
export type IndexedDeadLetter<T extends DeadLetter = DeadLetter> = T & { redrivenAtMs?: number };

/** All optional; times compare with deadLetteredAt, `since` inclusive, `until` exclusive. */
export interface DeadLetterFilter {
  destinationId?: string;
  /** Why it was given up (a task's deadLetterReason, `unknown` when it has none). */
  reason?: string;
  sinceMs?: number;
  untilMs?: number;
  /** Only these task ids. */
  taskIds?: ReadonlySet<string>;
}

/** The id a dead letter is shown and fetched by: its task id, or `undecodable:<partition>:<offset>`. */
export function deadLetterId(entry: DeadLetter): string {
  return entry.kind === 'task' ? entry.task.taskId : `undecodable:${positionKey(entry.position)}`;
}

export function deadLetterReason(entry: DeadLetter): string {
  return entry.kind === 'task' ? (entry.task.deadLetterReason ?? 'unknown') : entry.copy.reason;
}

export function deadLetteredAtMs(entry: DeadLetter): number {
  return entry.kind === 'task' ? (entry.task.deadLetteredAtMs ?? 0) : entry.copy.deadLetteredAtMs;
}

export function matches(entry: DeadLetter, filter: DeadLetterFilter): boolean {
  const at = deadLetteredAtMs(entry);
  if (filter.sinceMs !== undefined && at < filter.sinceMs) return false;
  if (filter.untilMs !== undefined && at >= filter.untilMs) return false;
  if (filter.reason !== undefined && deadLetterReason(entry) !== filter.reason) return false;
  if (filter.destinationId !== undefined || filter.taskIds !== undefined) {
    if (entry.kind !== 'task') return false;
    if (filter.destinationId !== undefined && entry.task.destinationId !== filter.destinationId) return false;
    if (filter.taskIds !== undefined && !filter.taskIds.has(entry.task.taskId)) return false;
  }
  return true;
}
