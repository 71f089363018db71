import { RecordTooLargeError } from '../core/errors';

/** A message to write, as the BatchingProducer takes it. */
export interface OutgoingMessage {
  topic: string;
  key: string | null;
  value: Buffer | null;
  headers?: Record<string, string>;
  /** Written to this partition; default: by key (murmur2, as the Java client). */
  partition?: number;
}

/** Kafka's default `message.max.bytes` (1 MiB + 12), less a record batch's 61-byte header. */
export const DEFAULT_MAX_RECORD_BYTES = 1_048_588 - 61;
/** A record's framing at most: length, attributes, timestamp and offset deltas, key and value lengths, header count (varints). */
const RECORD_FRAMING_BYTES = 5 + 1 + 10 + 5 + 5 + 5 + 5;
/** A header's framing at most: its key's and its value's length (varints). */
const HEADER_FRAMING_BYTES = 5 + 5;

/**
 * The bytes a message takes in a record batch, at most: its key (UTF-8), value, header keys and
 * values, and their framing. A request's size is the sum of its messages', so a request capped in
 * these bytes stays under the broker's limit whatever the keys, headers and record count.
 */
export function recordBytes(m: OutgoingMessage): number {
  let bytes = RECORD_FRAMING_BYTES + (m.value?.length ?? 0);
  if (m.key !== null) bytes += Buffer.byteLength(m.key, 'utf8');
  const { headers } = m;
  if (headers !== undefined) {
    for (const name in headers) {
      const value = headers[name];
      bytes += HEADER_FRAMING_BYTES + Buffer.byteLength(name, 'utf8');
      if (value !== undefined && value !== null) bytes += Buffer.byteLength(value, 'utf8');
    }
  }
  return bytes;
}

/** The error a message too large to send fails its caller's send with. */
export function tooLarge(m: OutgoingMessage, size: number, maxRecordBytes: number): RecordTooLargeError {
  return new RecordTooLargeError(
    `a record of ${size} bytes for ${m.topic} (key ${JSON.stringify(m.key)}) exceeds the ${maxRecordBytes}-byte limit; not sent`,
  );
}
