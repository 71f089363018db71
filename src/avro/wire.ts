import type { Type } from 'avsc';
import { UndecodableRecordError } from '../core/errors';

/** Confluent wire format: magic byte 0, 4-byte big-endian schema id, then the Avro binary body. */
const MAGIC_BYTE = 0;
export const WIRE_HEADER_BYTES = 5;

export function frame(schemaId: number, body: Buffer): Buffer {
  const out = Buffer.allocUnsafe(WIRE_HEADER_BYTES + body.length);
  out.writeUInt8(MAGIC_BYTE, 0);
  out.writeInt32BE(schemaId, 1);
  body.copy(out, WIRE_HEADER_BYTES);
  return out;
}

/**
 * `frame(schemaId, type.toBuffer(value))` with one copy instead of two: the body is written
 * after the header in a scratch buffer kept between calls (grown when a record does not fit),
 * and the framed record copied out of it.
 */
export class FrameWriter {
  private buffer = Buffer.allocUnsafe(16 * 1024);

  encode(schemaId: number, type: Type, value: unknown): Buffer {
    let end = type.encode(value, this.buffer, WIRE_HEADER_BYTES);
    if (end < 0) {
      // Too small by -end bytes: grow, and write again.
      this.buffer = Buffer.allocUnsafe(2 * (this.buffer.length - end));
      end = type.encode(value, this.buffer, WIRE_HEADER_BYTES);
    }
    this.buffer.writeUInt8(MAGIC_BYTE, 0);
    this.buffer.writeInt32BE(schemaId, 1);
    const out = Buffer.allocUnsafe(end);
    this.buffer.copy(out, 0, 0, end);
    return out;
  }
}

export function unframe(bytes: Buffer): { schemaId: number; body: Buffer } {
  if (bytes.length < WIRE_HEADER_BYTES) {
    throw new UndecodableRecordError(
      `record of ${bytes.length} bytes is shorter than the wire-format header`,
    );
  }
  const magic = bytes.readUInt8(0);
  if (magic !== MAGIC_BYTE) {
    throw new UndecodableRecordError(
      `unknown magic byte ${magic} (expected ${MAGIC_BYTE}, Confluent wire format)`,
    );
  }
  return { schemaId: bytes.readInt32BE(1), body: bytes.subarray(WIRE_HEADER_BYTES) };
}
