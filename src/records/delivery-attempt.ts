import type { AvroCodec } from '../avro/codec';
import { UndecodableRecordError } from '../core/errors';

/** The record type of `<prefix>.attempts` (schemas/delivery-attempt.avsc). */
export const DELIVERY_ATTEMPT_RECORD = 'io.hookline.delivery.DeliveryAttempt';

export const ATTEMPT_OUTCOMES = ['delivered', 'retry_scheduled', 'dead_lettered', 'deferred'] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

/** One URL tried during an attempt (its index, never the URL itself). */
export interface UrlTry {
  urlIndex: number;
  result: string;
  status?: number;
  durationMs: number;
  error?: string;
}

/** One delivery attempt, as recorded on `<prefix>.attempts`. Times in epoch ms. */
export interface AttemptEntry {
  taskId: string;
  destinationId: string;
  sourceId: string;
  messageId: string;
  eventType: string;
  /** 1 for a task's first attempt (counted again from 1 after a redrive). */
  attempt: number;
  atMs: number;
  durationMs: number;
  outcome: string;
  /** Dead-letter reason, or the delay tier of a scheduled retry. */
  detail?: string;
  dueAtMs?: number;
  urls: UrlTry[];
}

/** The DeliveryAttempt record as avsc decodes it. */
export interface AttemptValue {
  taskId: string;
  destinationId: string;
  sourceId: string;
  messageId: string;
  eventType: string;
  attempt: number;
  at: number;
  durationMs: number;
  outcome: string;
  detail: string | null;
  dueAt: number | null;
  urls: {
    urlIndex: number;
    result: string;
    status: number | null;
    durationMs: number;
    error: string | null;
  }[];
}

export function encodeAttempt(avro: AvroCodec, entry: AttemptEntry): Buffer {
  return avro.encode(DELIVERY_ATTEMPT_RECORD, {
    taskId: entry.taskId,
    destinationId: entry.destinationId,
    sourceId: entry.sourceId,
    messageId: entry.messageId,
    eventType: entry.eventType,
    attempt: entry.attempt,
    at: entry.atMs,
    durationMs: entry.durationMs,
    outcome: entry.outcome,
    detail: entry.detail ?? null,
    dueAt: entry.dueAtMs ?? null,
    urls: entry.urls.map((u) => ({
      urlIndex: u.urlIndex,
      result: u.result,
      status: u.status ?? null,
      durationMs: Math.round(u.durationMs),
      error: u.error ?? null,
    })),
  } satisfies AttemptValue);
}

export async function decodeAttempt(avro: AvroCodec, bytes: Buffer): Promise<AttemptEntry> {
  const { name, value } = await avro.decode(bytes);
  if (name !== DELIVERY_ATTEMPT_RECORD) throw new UndecodableRecordError(`${name} is not a DeliveryAttempt`);
  return attemptEntry(value as unknown as AttemptValue);
}

/** The Avro record → an entry (nulls become absent fields). */
export function attemptEntry(r: AttemptValue): AttemptEntry {
  return {
    taskId: r.taskId,
    destinationId: r.destinationId,
    sourceId: r.sourceId,
    messageId: r.messageId,
    eventType: r.eventType,
    attempt: r.attempt,
    atMs: r.at,
    durationMs: r.durationMs,
    outcome: r.outcome,
    ...(r.detail !== null && { detail: r.detail }),
    ...(r.dueAt !== null && { dueAtMs: r.dueAt }),
    urls: r.urls.map((u) => ({
      urlIndex: u.urlIndex,
      result: u.result,
      ...(u.status !== null && { status: u.status }),
      durationMs: u.durationMs,
      ...(u.error !== null && { error: u.error }),
    })),
  };
}
