/**
 * The body of a Kafka Produce request, versions 3 to 7 (all one wire format), encoded in one
 * buffer of the exact size: the same bytes kafkajs 2.2.4's own encoder writes, at a fraction of
 * its cost. kafkajs builds every record in a fresh zero-filled 512-byte buffer that grows by
 * copying, allocates a one- or two-byte Buffer for each varint, and copies each record, batch,
 * partition and topic into the next enclosing buffer (the cost: docs/adr/0001-kafka-client.md). See `produce-encoding.ts` for where it is
 * used and the fall-back to kafkajs for anything this does not handle.
 */

/** A message as kafkajs hands it to the Produce request. */
export interface ProduceMessage {
  key?: unknown;
  value?: unknown;
  headers?: Record<string, unknown>;
  timestamp?: unknown;
}

/** The arguments of kafkajs's Produce request (`protocol/requests/produce/v3/request.js`). */
export interface ProduceRequestArgs {
  acks?: unknown;
  timeout?: unknown;
  transactionalId?: string | null;
  /** kafkajs's Long, a bigint, a number or a decimal string; -1 when absent. */
  producerId?: unknown;
  producerEpoch?: number;
  compression?: number;
  topicData: {
    topic: string;
    partitions: { partition: number; firstSequence?: number; messages: ProduceMessage[] }[];
  }[];
}

/** Unsigned CRC-32C of a buffer (kafkajs's `recordBatch/crc32C`). */
export type Crc32c = (bytes: Buffer) => number;

const MAGIC_BYTE = 2;
const TRANSACTIONAL_ATTRIBUTE = 16;
/** The batch header the CRC covers: attributes … firstSequence. */
const BATCH_BODY_HEADER_BYTES = 2 + 4 + 8 + 8 + 8 + 2 + 4;

/** A key, value or header value as the wire carries it: its bytes, or null for a null. */
type Bytes = Buffer | string | null;

/** Bytes of a zigzag varint of a 32-bit signed value. */
export function varIntSize(value: number): number {
  let encoded = ((value << 1) ^ (value >> 31)) >>> 0;
  let bytes = 1;
  while (encoded >= 0x80) {
    bytes += 1;
    encoded >>>= 7;
  }
  return bytes;
}

function writeVarInt(buf: Buffer, offset: number, value: number): number {
  let encoded = ((value << 1) ^ (value >> 31)) >>> 0;
  while (encoded >= 0x80) {
    buf[offset++] = (encoded & 0x7f) | 0x80;
    encoded >>>= 7;
  }
  buf[offset++] = encoded;
  return offset;
}

function byteLength(bytes: Bytes): number {
  if (bytes === null) return -1;
  return typeof bytes === 'string' ? Buffer.byteLength(bytes, 'utf8') : bytes.length;
}

function writeBytes(buf: Buffer, offset: number, bytes: Bytes, length: number): number {
  offset = writeVarInt(buf, offset, length);
  if (bytes === null) return offset;
  if (typeof bytes === 'string') return offset + buf.write(bytes, offset, length, 'utf8');
  return offset + bytes.copy(buf, offset);
}

/** `value` as the wire carries it; undefined when kafkajs would treat it differently (see below). */
function asBytes(value: unknown): Bytes | undefined {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || Buffer.isBuffer(value)) return value;
  return undefined;
}

function asInt64(value: unknown): bigint | undefined {
  if (value === undefined) return -1n;
  if (typeof value === 'bigint') return BigInt.asIntN(64, value);
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : undefined;
  if (typeof value === 'string') return /^-?\d+$/.test(value) ? BigInt.asIntN(64, BigInt(value)) : undefined;
  const inner = (value as { value?: unknown } | null)?.value; // kafkajs's Long
  return typeof inner === 'bigint' ? BigInt.asIntN(64, inner) : undefined;
}

/** One record's parts, measured once and written in the second pass. */
interface Measured {
  key: Bytes;
  keyLength: number;
  value: Bytes;
  valueLength: number;
  headers: { key: string; keyLength: number; value: Bytes; valueLength: number }[];
  bodyLength: number;
}

function measure(message: ProduceMessage, offsetDelta: number): Measured | undefined {
  if (message.timestamp !== undefined && message.timestamp !== null) return undefined;
  const key = asBytes(message.key);
  const value = asBytes(message.value);
  if (key === undefined || value === undefined) return undefined;
  const keyLength = byteLength(key);
  const valueLength = byteLength(value);
  const headers: Measured['headers'] = [];
  let headersLength = 0;
  for (const headerKey of Object.keys(message.headers ?? {})) {
    const raw = message.headers![headerKey];
    for (const item of Array.isArray(raw) ? raw : [raw]) {
      // kafkajs measures a header value with Buffer.byteLength, which throws on null: leave those to it.
      const headerValue = asBytes(item);
      if (headerValue === undefined || headerValue === null) return undefined;
      const keyBytes = Buffer.byteLength(headerKey, 'utf8');
      const headerValueLength = byteLength(headerValue);
      headers.push({
        key: headerKey,
        keyLength: keyBytes,
        value: headerValue,
        valueLength: headerValueLength,
      });
      headersLength += varIntSize(keyBytes) + keyBytes + varIntSize(headerValueLength) + headerValueLength;
    }
  }
  headersLength += varIntSize(headers.length);
  const bodyLength =
    1 + // attributes
    1 + // timestamp delta: 0 as a varlong
    varIntSize(offsetDelta) +
    varIntSize(keyLength) +
    Math.max(keyLength, 0) +
    varIntSize(valueLength) +
    Math.max(valueLength, 0) +
    headersLength;
  return { key, keyLength, value, valueLength, headers, bodyLength };
}

function writeRecord(buf: Buffer, offset: number, record: Measured, offsetDelta: number): number {
  offset = writeVarInt(buf, offset, record.bodyLength);
  buf[offset++] = 0; // attributes
  buf[offset++] = 0; // timestamp delta
  offset = writeVarInt(buf, offset, offsetDelta);
  offset = writeBytes(buf, offset, record.key, record.keyLength);
  offset = writeBytes(buf, offset, record.value, record.valueLength);
  offset = writeVarInt(buf, offset, record.headers.length);
  for (const header of record.headers) {
    offset = writeBytes(buf, offset, header.key, header.keyLength);
    offset = writeBytes(buf, offset, header.value, header.valueLength);
  }
  return offset;
}

/**
 * The request body kafkajs's `encode()` would return for `args` at `nowMs`, or undefined for what
 * this leaves to kafkajs: compression, messages with their own timestamp (kafkajs orders those as
 * strings), and keys, values or header values that are neither strings nor Buffers (kafkajs
 * throws on some of them; it should keep doing so itself).
 */
export function encodeProduceRequest(
  args: ProduceRequestArgs,
  nowMs: number,
  crc32c: Crc32c,
): Buffer | undefined {
  if ((args.compression ?? 0) !== 0) return undefined;
  if (typeof args.acks !== 'number' || typeof args.timeout !== 'number') return undefined;
  const producerId = asInt64(args.producerId);
  if (producerId === undefined) return undefined;
  const transactionalId = args.transactionalId ?? null;
  const transactionalIdLength = transactionalId === null ? -1 : Buffer.byteLength(transactionalId, 'utf8');

  const measured: Measured[][][] = [];
  let size = 2 + Math.max(transactionalIdLength, 0) + 2 + 4 + 4;
  for (const topic of args.topicData) {
    const partitions: Measured[][] = [];
    size += 2 + Buffer.byteLength(topic.topic, 'utf8') + 4;
    for (const partition of topic.partitions) {
      const records: Measured[] = [];
      size += 4 + 4 + 8 + 4 + 4 + 1 + 4 + BATCH_BODY_HEADER_BYTES + 4;
      for (let i = 0; i < partition.messages.length; i++) {
        const record = measure(partition.messages[i]!, i);
        if (record === undefined) return undefined;
        records.push(record);
        size += varIntSize(record.bodyLength) + record.bodyLength;
      }
      partitions.push(records);
    }
    measured.push(partitions);
  }

  const buf = Buffer.allocUnsafe(size);
  let offset = buf.writeInt16BE(transactionalIdLength, 0);
  if (transactionalId !== null) offset += buf.write(transactionalId, offset, 'utf8');
  offset = buf.writeInt16BE(args.acks, offset);
  offset = buf.writeInt32BE(args.timeout, offset);
  offset = buf.writeInt32BE(args.topicData.length, offset);
  const attributes = transactionalId ? TRANSACTIONAL_ATTRIBUTE : 0;
  const timestamp = BigInt(nowMs);
  args.topicData.forEach((topic, t) => {
    offset = buf.writeInt16BE(Buffer.byteLength(topic.topic, 'utf8'), offset);
    offset += buf.write(topic.topic, offset, 'utf8');
    offset = buf.writeInt32BE(topic.partitions.length, offset);
    topic.partitions.forEach((partition, p) => {
      const records = measured[t]![p]!;
      offset = buf.writeInt32BE(partition.partition, offset);
      const sizeAt = offset;
      offset = buf.writeBigInt64BE(0n, offset + 4); // first offset
      const lengthAt = offset;
      offset = buf.writeInt32BE(0, offset + 4); // partition leader epoch
      offset = buf.writeInt8(MAGIC_BYTE, offset);
      const crcAt = offset;
      const bodyAt = offset + 4;
      offset = buf.writeInt16BE(attributes, bodyAt);
      offset = buf.writeInt32BE(records.length - 1, offset);
      offset = buf.writeBigInt64BE(timestamp, offset); // first timestamp
      offset = buf.writeBigInt64BE(timestamp, offset); // max timestamp
      offset = buf.writeBigInt64BE(producerId, offset);
      offset = buf.writeInt16BE(args.producerEpoch ?? 0, offset);
      offset = buf.writeInt32BE(partition.firstSequence ?? 0, offset);
      offset = buf.writeInt32BE(records.length, offset);
      records.forEach((record, i) => {
        offset = writeRecord(buf, offset, record, i);
      });
      buf.writeUInt32BE(crc32c(buf.subarray(bodyAt, offset)), crcAt);
      buf.writeInt32BE(offset - lengthAt - 4, lengthAt);
      buf.writeInt32BE(offset - sizeAt - 4, sizeAt);
    });
  });
  if (offset !== size) throw new Error(`produce request measured ${size} bytes but wrote ${offset}`);
  return buf;
}
