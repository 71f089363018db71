import { z } from 'zod';
import type { AttemptEntry } from '../records/delivery-attempt';
import { deadLetterId, type IndexedDeadLetter, type TaskDeadLetter } from './dead-letters/dead-letter';
import type { ReplayProgress } from './replay';
import type { RedriveResult } from './redrive';

/**
 * What the operations endpoints answer. A task's destination settings (URLs, headers, shared
 * secret) are not part of a task, and no schema here has a field for them: they cannot leak.
 */
const timestamp = z.string().meta({ format: 'date-time', description: 'ISO 8601 UTC.' });
const int = z.number().int();

const dlqPositionSchema = z
  .object({ partition: int, offset: z.string() })
  .meta({ description: 'Where the dead letter is on the dead-letter topic.' });

const attemptSummarySchema = z
  .object({
    at: timestamp,
    durationMs: int,
    urlIndex: int.meta({ description: 'Index of the last URL tried.' }),
    status: int.optional(),
    result: z.string().meta({
      description: 'success, http_4xx, http_5xx, timeout, connection, tls, blocked_address, deferred.',
    }),
    error: z.string().optional(),
  })
  .meta({ id: 'AttemptSummary' });

export const taskDeadLetterSchema = z
  .object({
    kind: z.literal('task'),
    id: z.string().meta({ description: 'The task id, <sourceId>:<messageId>:<destinationId>.' }),
    taskId: z.string(),
    destinationId: z.string(),
    sourceId: z.string(),
    messageId: z.string(),
    eventType: z.string(),
    reason: z
      .string()
      .meta({ description: 'Why it was given up: retry_cutoff, http_410, destination_deleted, ...' }),
    attempts: int,
    receivedAt: timestamp,
    firstAttemptAt: timestamp.optional(),
    reissuedAt: timestamp.optional().meta({
      description:
        'Set when a redrive or replay wrote the task anew; its 4-hour retry cutoff counts from then, or from its first attempt after it.',
    }),
    deadLetteredAt: timestamp,
    redrivenAt: timestamp.optional().meta({ description: 'Set once redriven; a redrive skips it then.' }),
    history: z.array(attemptSummarySchema).meta({ description: 'Every attempt, oldest first.' }),
    dlq: dlqPositionSchema,
  })
  .meta({ id: 'TaskDeadLetter' });

export const undecodableDeadLetterSchema = z
  .object({
    kind: z.literal('undecodable'),
    id: z.string().meta({ description: 'undecodable:<partition>:<offset> of the dead-letter topic.' }),
    reason: z.string(),
    deadLetteredAt: timestamp,
    source: z
      .object({ topic: z.string(), partition: int, offset: int })
      .meta({ description: 'Where it was read.' }),
    valueBytes: int,
    dlq: dlqPositionSchema,
  })
  .meta({ id: 'UndecodableDeadLetter', description: 'A record that could not be decoded; not redrivable.' });

export const deadLetterSchema = z
  .discriminatedUnion('kind', [taskDeadLetterSchema, undecodableDeadLetterSchema])
  .meta({ id: 'DeadLetter' });

export const deadLetterListSchema = z
  .object({
    deadLetters: z.array(deadLetterSchema).meta({ description: 'Newest first, at most `limit`.' }),
    total: int.meta({ description: 'How many match, before the limit.' }),
  })
  .meta({ id: 'DeadLetterList' });

export const deadLetterDetailSchema = z
  .union([
    taskDeadLetterSchema.extend({
      payload: z.string().meta({ description: 'The JSON body that will be sent.' }),
      previous: z.array(taskDeadLetterSchema).meta({
        description:
          'Earlier dead letters of the same task (dead-lettered again after a redrive), oldest first.',
      }),
    }),
    undecodableDeadLetterSchema,
  ])
  .meta({ id: 'DeadLetterDetail' });

export const redriveResultSchema = z
  .object({
    redriven: int,
    taskIds: z.array(z.string()),
    skipped: z.array(
      z.object({
        id: z.string(),
        reason: z.enum([
          'not_found',
          'not_redrivable',
          'already_redriven',
          'not_matching',
          'destination_disabled',
          'destination_deleted',
        ]),
      }),
    ),
  })
  .meta({ id: 'RedriveResult' });

export const attemptViewSchema = z
  .object({
    taskId: z.string(),
    messageId: z.string(),
    sourceId: z.string(),
    eventType: z.string(),
    attempt: int.meta({ description: '1 for the first attempt (from 1 again after a redrive).' }),
    at: timestamp,
    durationMs: int,
    outcome: z.string().meta({ description: 'delivered, retry_scheduled, dead_lettered or deferred.' }),
    detail: z.string().optional().meta({ description: 'Dead-letter reason, or the delay tier of a retry.' }),
    dueAt: timestamp.optional(),
    urls: z.array(
      z.object({
        urlIndex: int,
        result: z.string(),
        status: int.optional(),
        durationMs: int,
        error: z.string().optional(),
      }),
    ),
  })
  .meta({ id: 'Attempt' });

export const attemptListSchema = z
  .object({
    destinationId: z.string(),
    attempts: z.array(attemptViewSchema).meta({ description: 'Newest first.' }),
  })
  .meta({ id: 'AttemptList' });

export const replayViewSchema = z
  .object({
    id: z.string(),
    destinationId: z.string(),
    since: timestamp,
    state: z.enum(['running', 'done', 'failed', 'stopped']),
    done: z.boolean(),
    eventsTotal: int
      .optional()
      .meta({ description: 'Events between since and the end of the topic at start.' }),
    eventsRead: int,
    eventsSkipped: int.meta({ description: 'Undecodable events (already on the dead-letter topic).' }),
    tasksWritten: int,
    startedAt: timestamp,
    finishedAt: timestamp.optional(),
    error: z.string().optional(),
  })
  .meta({ id: 'Replay' });

export type DeadLetterView = z.output<typeof deadLetterSchema>;
export type TaskDeadLetterView = z.output<typeof taskDeadLetterSchema>;
export type DeadLetterDetailView = z.output<typeof deadLetterDetailSchema>;
export type AttemptView = z.output<typeof attemptViewSchema>;
export type ReplayView = z.output<typeof replayViewSchema>;
export type RedriveResultView = z.output<typeof redriveResultSchema>;

const iso = (ms: number) => new Date(ms).toISOString();
const optionalIso = (ms: number | undefined) => (ms === undefined ? undefined : iso(ms));

export function deadLetterView(entry: IndexedDeadLetter): DeadLetterView {
  const dlq = { partition: entry.position.partition, offset: entry.position.offset };
  if (entry.kind === 'undecodable') {
    const { copy } = entry;
    return {
      kind: 'undecodable',
      id: deadLetterId(entry),
      reason: copy.reason,
      deadLetteredAt: iso(copy.deadLetteredAtMs),
      source: { topic: copy.topic, partition: copy.partition, offset: copy.offset },
      valueBytes: copy.valueBytes,
      dlq,
    };
  }
  return taskView(entry);
}

function taskView({ task, position, redrivenAtMs }: IndexedDeadLetter<TaskDeadLetter>): TaskDeadLetterView {
  return {
    kind: 'task',
    id: task.taskId,
    taskId: task.taskId,
    destinationId: task.destinationId,
    sourceId: task.sourceId,
    messageId: task.messageId,
    eventType: task.eventType,
    reason: task.deadLetterReason ?? 'unknown',
    attempts: task.attempts,
    receivedAt: iso(task.receivedAtMs),
    firstAttemptAt: optionalIso(task.firstAttemptAtMs),
    reissuedAt: optionalIso(task.reissuedAtMs),
    deadLetteredAt: iso(task.deadLetteredAtMs ?? 0),
    redrivenAt: optionalIso(redrivenAtMs),
    history: task.history.map((h) => ({
      at: iso(h.atMs),
      durationMs: h.durationMs,
      urlIndex: h.urlIndex,
      status: h.status,
      result: h.result,
      error: h.error,
    })),
    dlq: { partition: position.partition, offset: position.offset },
  };
}

/** The latest dead letter with this id, with its payload and the earlier ones. `entries` oldest first. */
export function deadLetterDetail(entries: IndexedDeadLetter[]): DeadLetterDetailView {
  const latest = entries[entries.length - 1]!;
  if (latest.kind === 'undecodable') return deadLetterView(latest) as DeadLetterDetailView;
  const previous = entries
    .slice(0, -1)
    .filter((e): e is IndexedDeadLetter<TaskDeadLetter> => e.kind === 'task');
  return {
    ...taskView(latest),
    payload: latest.task.payload,
    previous: previous.map(taskView),
  };
}

export function attemptView(entry: AttemptEntry): AttemptView {
  return {
    taskId: entry.taskId,
    messageId: entry.messageId,
    sourceId: entry.sourceId,
    eventType: entry.eventType,
    attempt: entry.attempt,
    at: iso(entry.atMs),
    durationMs: entry.durationMs,
    outcome: entry.outcome,
    detail: entry.detail,
    dueAt: optionalIso(entry.dueAtMs),
    urls: entry.urls.map((u) => ({ ...u })),
  };
}

/** An attempt as another process's admin API showed it (`attemptView`), back to the entry. */
export function attemptFromView(destinationId: string, view: AttemptView): AttemptEntry {
  return {
    taskId: view.taskId,
    destinationId,
    sourceId: view.sourceId,
    messageId: view.messageId,
    eventType: view.eventType,
    attempt: view.attempt,
    atMs: Date.parse(view.at),
    durationMs: view.durationMs,
    outcome: view.outcome,
    ...(view.detail !== undefined && { detail: view.detail }),
    ...(view.dueAt !== undefined && { dueAtMs: Date.parse(view.dueAt) }),
    urls: view.urls.map((u) => ({ ...u })),
  };
}

export function replayView(progress: ReplayProgress): ReplayView {
  return {
    id: progress.id,
    destinationId: progress.destinationId,
    since: iso(progress.sinceMs),
    state: progress.state,
    done: progress.state !== 'running',
    eventsTotal: progress.eventsTotal,
    eventsRead: progress.eventsRead,
    eventsSkipped: progress.eventsSkipped,
    tasksWritten: progress.tasksWritten,
    startedAt: iso(progress.startedAtMs),
    finishedAt: optionalIso(progress.finishedAtMs),
    error: progress.error,
  };
}

export function redriveResultView(result: RedriveResult): RedriveResultView {
  return { redriven: result.redriven, taskIds: result.taskIds, skipped: result.skipped };
}
