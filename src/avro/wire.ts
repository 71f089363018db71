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
