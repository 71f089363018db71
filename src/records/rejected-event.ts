import type { AvroCodec } from '../avro/codec';
import { stringifyJson, type JsonValue } from '../events/json';
import type { Rejection } from '../events/rejection';

/** The record type of `<prefix>.ingest-dlq` (schemas/ingest-rejected.avsc). */
export const REJECTED_EVENT_RECORD = 'io.hookline.ingest.RejectedEvent';

/** One event of a tracking request that was refused, with the reason and what the client sent. */
export interface RejectedEvent {
  sourceId: string;
  receivedAtMs: number;
  path: string;
  index: number;
  messageId: string | undefined;
  rejection: Rejection;
  payload: JsonValue;
}

export function encodeRejectedEvent(avro: AvroCodec, r: RejectedEvent): Buffer {
  return avro.encode(REJECTED_EVENT_RECORD, {
    sourceId: r.sourceId,
    receivedAt: r.receivedAtMs,
    path: r.path,
    index: r.index,
    messageId: r.messageId ?? null,
    code: r.rejection.code,
    reason: r.rejection.reason,
    payload: stringifyJson(r.payload),
  });
}
