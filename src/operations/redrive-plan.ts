import type { DeliveryTask } from '../records/delivery-task';
import {
  deadLetteredAtMs,
  type DeadLetterFilter,
  type IndexedDeadLetter,
  type TaskDeadLetter,
} from './dead-letters/dead-letter';

/** What a plan reads: the dead-letter index (`DlqStore`). */
export interface RedriveSource {
  pendingTasks(filter: DeadLetterFilter): Promise<IndexedDeadLetter<TaskDeadLetter>[]>;
  findMany(ids: readonly string[]): Promise<Map<string, IndexedDeadLetter[]>>;
}

/** What to redrive; every given criterion must hold (none = every pending dead letter). */
export interface RedriveRequest {
  destinationId?: string;
  sinceMs?: number;
  untilMs?: number;
  taskIds?: string[];
}

export type DestinationStatus = 'enabled' | 'disabled' | 'deleted';

export type RedriveSkipReason =
  | 'not_found'
  | 'not_redrivable'
  | 'already_redriven'
  | 'not_matching'
  | 'destination_disabled'
  | 'destination_deleted';

export interface RedrivePlan {
  /** One dead letter per task (its latest), oldest first, to resend as a fresh task. */
  send: TaskDeadLetter[];
  /** Every pending dead letter of those tasks, to mark as redriven. */
  mark: TaskDeadLetter[];
  /** Tasks left alone, and why. */
  skipped: { id: string; reason: RedriveSkipReason }[];
}

/**
 * Chooses what a redrive sends. A task dead-lettered several times (and not redriven) is sent
 * once, and all its pending dead letters are marked. Tasks of a deleted or disabled destination
 * are skipped (resending them would only dead-letter them again) and stay pending. Task ids asked
 * for by name that are not sent say why.
 */
export async function planRedrive(
  source: RedriveSource,
  request: RedriveRequest,
  destinationStatus: (destinationId: string) => DestinationStatus,
): Promise<RedrivePlan> {
  const requested = request.taskIds ? new Set(request.taskIds) : undefined;
  const pending = await source.pendingTasks({
    destinationId: request.destinationId,
    sinceMs: request.sinceMs,
    untilMs: request.untilMs,
    taskIds: requested,
  });
  const byTask = new Map<string, TaskDeadLetter[]>();
  for (const entry of pending) {
    const same = byTask.get(entry.task.taskId);
    if (same) same.push(entry);
    else byTask.set(entry.task.taskId, [entry]);
  }

  const plan: RedrivePlan = { send: [], mark: [], skipped: [] };
  for (const [taskId, entries] of byTask) {
    const latest = entries.reduce((a, b) => (deadLetteredAtMs(b) >= deadLetteredAtMs(a) ? b : a));
    const status = destinationStatus(latest.task.destinationId);
    if (status !== 'enabled') {
      plan.skipped.push({
        id: taskId,
        reason: status === 'deleted' ? 'destination_deleted' : 'destination_disabled',
      });
      continue;
    }
    plan.send.push(latest);
    plan.mark.push(...entries);
  }
  plan.send.sort((a, b) => deadLetteredAtMs(a) - deadLetteredAtMs(b));

  const unsent = [...(requested ?? [])].filter((id) => !byTask.has(id));
  const looked = unsent.length > 0 ? await source.findMany(unsent) : new Map<string, IndexedDeadLetter[]>();
  for (const id of unsent) {
    const found = looked.get(id) ?? [];
    const reason: RedriveSkipReason =
      found.length === 0
        ? 'not_found'
        : found[0]!.kind === 'undecodable'
          ? 'not_redrivable'
          : found.every((e) => e.redrivenAtMs !== undefined)
            ? 'already_redriven'
            : 'not_matching';
    plan.skipped.push({ id, reason });
  }
  return plan;
}

/**
 * The task a redrive writes to the deliveries topic: attempts back to 0 with a fresh retry
 * window (no first-attempt or due time; its cutoff clock restarts at `redrivenAtMs`, not at the
 * event's receipt, which `receivedAtMs` keeps) and no dead-letter fields. The attempt history is
 * kept, so a task dead-lettered again shows every attempt it ever had.
 */
export function freshTask(task: DeliveryTask, redrivenAtMs: number): DeliveryTask {
  const fresh: DeliveryTask = {
    ...task,
    attempts: 0,
    history: [...task.history],
    reissuedAtMs: redrivenAtMs,
  };
  delete fresh.firstAttemptAtMs;
  delete fresh.dueAtMs;
  delete fresh.deadLetterReason;
  delete fresh.deadLetteredAtMs;
  return fresh;
}
