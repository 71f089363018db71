import type { AvroCodec } from '../avro/codec';
import { UndecodableRecordError } from '../core/errors';

export const DELIVERY_TASK_RECORD = 'io.hookline.delivery.DeliveryTask';

/**
 * Result of one attempt, as recorded in a task's history. `blocked_address`: the SSRF guard
 * refused the URL's address, no connection was made. (Avro `string`: new values are compatible.)
 */
export type AttemptResult =
  | 'success'
  | 'http_4xx'
  | 'http_5xx'
  | 'timeout'
  | 'connection'
  | 'tls'
  | 'blocked_address'
  | 'circuit_open'
  | 'deferred';

export interface AttemptSummary {
  atMs: number;
  durationMs: number;
  urlIndex: number;
  status?: number;
  result: AttemptResult;
  error?: string;
}

/** One event to deliver to one destination (schemas/delivery-task.avsc). Times in epoch ms. */
export interface DeliveryTask {
  taskId: string;
  destinationId: string;
  sourceId: string;
  messageId: string;
  eventType: string;
  userKey: string;
  /** The exact JSON body to POST. */
  payload: string;
  /** When Hookline received the event (end-to-end latency; unchanged by a redrive or replay). */
  receivedAtMs: number;
  attempts: number;
  firstAttemptAtMs?: number;
  dueAtMs?: number;
  history: AttemptSummary[];
  deadLetterReason?: string;
  deadLetteredAtMs?: number;
  /**
   * When a redrive or replay wrote this task anew (absent for a task routed from a live event):
   * its cutoff clock starts here until its first attempt (`cutoffClockStartMs`).
   */
  reissuedAtMs?: number;
}

export function taskId(sourceId: string, messageId: string, destinationId: string): string {
  return `${sourceId}:${messageId}:${destinationId}`;
}

/**
 * Kafka key of a task: per destination and user, so one user's events to one destination stay in
 * order. On `hookline.deliveries`, a rate-limited destination's tasks are keyed by the destination
 * alone: they all go through one partition, so one worker paces every request to it.
 */
export function taskKey(
  task: Pick<DeliveryTask, 'destinationId' | 'userKey'>,
  options: { rateLimited?: boolean } = {},
): string {
  return options.rateLimited ? task.destinationId : `${task.destinationId}:${task.userKey}`;
}

export function encodeTask(avro: AvroCodec, task: DeliveryTask): Buffer {
  return avro.encode(DELIVERY_TASK_RECORD, {
    taskId: task.taskId,
    destinationId: task.destinationId,
    sourceId: task.sourceId,
    messageId: task.messageId,
    eventType: task.eventType,
    userKey: task.userKey,
    payload: task.payload,
    receivedAt: task.receivedAtMs,
    attempts: task.attempts,
    firstAttemptAt: task.firstAttemptAtMs ?? null,
    dueAt: task.dueAtMs ?? null,
    history: task.history.map((h) => ({
      at: h.atMs,
      durationMs: h.durationMs,
      urlIndex: h.urlIndex,
      status: h.status ?? null,
      result: h.result,
      error: h.error ?? null,
    })),
    deadLetterReason: task.deadLetterReason ?? null,
    deadLetteredAt: task.deadLetteredAtMs ?? null,
    reissuedAt: task.reissuedAtMs ?? null,
  });
}

interface TaskRecord {
  taskId: string;
  destinationId: string;
  sourceId: string;
  messageId: string;
  eventType: string;
  userKey: string;
  payload: string;
  receivedAt: number;
  attempts: number;
  firstAttemptAt: number | null;
  dueAt: number | null;
  history: {
    at: number;
    durationMs: number;
    urlIndex: number;
    status: number | null;
    result: string;
    error: string | null;
  }[];
  deadLetterReason: string | null;
  deadLetteredAt: number | null;
  reissuedAt: number | null;
}

export async function decodeTask(avro: AvroCodec, bytes: Buffer): Promise<DeliveryTask> {
  const { name, value } = await avro.decode(bytes);
  if (name !== DELIVERY_TASK_RECORD) throw new UndecodableRecordError(`expected a DeliveryTask, got ${name}`);
  const r = value as unknown as TaskRecord;
  return {
    taskId: r.taskId,
    destinationId: r.destinationId,
    sourceId: r.sourceId,
    messageId: r.messageId,
    eventType: r.eventType,
    userKey: r.userKey,
    payload: r.payload,
    receivedAtMs: r.receivedAt,
    attempts: r.attempts,
    ...(r.firstAttemptAt !== null && { firstAttemptAtMs: r.firstAttemptAt }),
    ...(r.dueAt !== null && { dueAtMs: r.dueAt }),
    history: r.history.map((h) => ({
      atMs: h.at,
      durationMs: h.durationMs,
      urlIndex: h.urlIndex,
      ...(h.status !== null && { status: h.status }),
      result: h.result as AttemptResult,
      ...(h.error !== null && { error: h.error }),
    })),
    ...(r.deadLetterReason !== null && { deadLetterReason: r.deadLetterReason }),
    ...(r.deadLetteredAt !== null && { deadLetteredAtMs: r.deadLetteredAt }),
    ...(r.reissuedAt !== null && { reissuedAtMs: r.reissuedAt }),
  };
}
