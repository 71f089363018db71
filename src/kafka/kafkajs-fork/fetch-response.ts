import { ProtocolReader, UNSUPPORTED, checkedSum } from './protocol-reader';

/**
 * Decodes a Fetch v11 response into exactly what kafkajs 2.2.4's decoder returns, in one pass
 * over the bytes. kafkajs builds a `Decoder` per record and per header, a 64-bit `Long` (BigInt)
 * for each record's offset and timestamp, and each record's headers object by spreading it again
 * per header (the cost: docs/adr/0001-kafka-client.md).
 *
 * Only the common case is decoded here: record batches (magic 2), uncompressed, with integers a
 * JavaScript number holds exactly. Anything else (compression, legacy message sets, a malformed or
 * unusual response, header keys an object literal treats specially) returns undefined and the
 * caller uses kafkajs's decoder for the whole response, which then behaves, and fails, as it
 * always did. Keys, values and header values are views into `raw`, as kafkajs's are.
 */

/** A record as kafkajs's Fetch decoder hands it to its consumer. */
export interface FetchedMessage {
  magicByte: number;
  attributes: number;
  timestamp: string;
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: Record<string, Buffer | null | (Buffer | null)[]>;
  isControlRecord: boolean;
  batchContext: BatchContext;
}

export interface BatchContext {
  firstOffset: string;
  firstTimestamp: string;
  partitionLeaderEpoch: number;
  inTransaction: boolean;
  isControlBatch: boolean;
  lastOffsetDelta: number;
  producerId: string;
  producerEpoch: number;
  firstSequence: number;
  maxTimestamp: string;
  timestampType: number;
  magicByte: number;
}

export interface FetchResponse {
  throttleTime: 0;
  clientSideThrottleTime: number;
  errorCode: number;
  sessionId: number;
  responses: {
    topicName: string | null;
    partitions: {
      partition: number;
      errorCode: number;
      highWatermark: string;
      lastStableOffset: string;
      lastStartOffset: string;
      abortedTransactions: { producerId: string; firstOffset: string }[];
      preferredReadReplica: number;
      messages: FetchedMessage[];
    }[];
  }[];
}

/** kafkajs reads a record set's magic byte here, whatever the format. */
const MAGIC_OFFSET = 16;
const RECORD_BATCH_MAGIC = 2;
/** kafkajs decodes another batch while this many bytes are left (the header after the length). */
const RECORD_BATCH_OVERHEAD = 49;
const COMPRESSION_MASK = 0x07;
const TIMESTAMP_TYPE_MASK = 0x08;
const TRANSACTIONAL_MASK = 0x10;
const CONTROL_MASK = 0x20;
const CREATE_TIME = 0;
const LOG_APPEND_TIME = 1;

/** What `{}[key]` finds on Object.prototype (kafkajs's header merge would see it). */
const PLAIN: Record<string, unknown> = {};

/** The response, or undefined when kafkajs's decoder should read it (see above). */
export function decodeFetchResponse(raw: Buffer): FetchResponse | undefined {
  try {
    return new FetchReader(raw).response();
  } catch {
    return undefined; // kafkajs decodes it (and throws its own error if it is malformed)
  }
}

class FetchReader extends ProtocolReader {
  response(): FetchResponse {
    const clientSideThrottleTime = this.int32();
    const errorCode = this.int16();
    const sessionId = this.int32();
    const responses = this.array(() => {
      const topicName = this.string();
      const partitions = this.array(() => this.partition());
      return { topicName, partitions };
    });
    return { throttleTime: 0, clientSideThrottleTime, errorCode, sessionId, responses };
  }

  private partition(): FetchResponse['responses'][number]['partitions'][number] {
    const partition = this.int32();
    const errorCode = this.int16();
    const highWatermark = this.int64();
    const lastStableOffset = this.int64();
    const lastStartOffset = this.int64();
    const abortedTransactions = this.array(() => ({ producerId: this.int64(), firstOffset: this.int64() }));
    const preferredReadReplica = this.int32();
    return {
      partition,
      errorCode,
      highWatermark,
      lastStableOffset,
      lastStartOffset,
      abortedTransactions,
      preferredReadReplica,
      messages: this.messages(),
    };
  }

  /** kafkajs's decodeMessages for record batches: whole batches, a partial one at the end dropped. */
  private messages(): FetchedMessage[] {
    const size = this.int32();
    if (size <= 0) return [];
    const end = this.at + size;
    if (end > this.raw.length || size <= MAGIC_OFFSET) throw UNSUPPORTED;
    if (this.raw.readInt8(this.at + MAGIC_OFFSET) !== RECORD_BATCH_MAGIC) throw UNSUPPORTED;
    const messages: FetchedMessage[] = [];
    while (end - this.at >= RECORD_BATCH_OVERHEAD) {
      const firstOffset = this.safeInt64();
      const length = this.int32();
      if (end - this.at < length) break; // the partial batch a fetch may end with
      if (length < RECORD_BATCH_OVERHEAD) throw UNSUPPORTED;
      this.batch(firstOffset, this.at + length, messages);
    }
    this.at = end;
    return messages;
  }

  private batch(firstOffset: number, batchEnd: number, messages: FetchedMessage[]): void {
    const partitionLeaderEpoch = this.int32();
    const magicByte = this.int8();
    this.at += 4; // CRC, not checked (nor by kafkajs)
    const attributes = this.int16();
    if ((attributes & COMPRESSION_MASK) !== 0) throw UNSUPPORTED;
    const lastOffsetDelta = this.int32();
    const firstTimestamp = this.safeInt64();
    const maxTimestamp = this.int64();
    const producerId = this.int64();
    const producerEpoch = this.int16();
    const firstSequence = this.int32();
    const timestampType = (attributes & TIMESTAMP_TYPE_MASK) > 0 ? LOG_APPEND_TIME : CREATE_TIME;
    const isControlBatch = (attributes & CONTROL_MASK) > 0;
    const batchContext: BatchContext = {
      firstOffset: String(firstOffset),
      firstTimestamp: String(firstTimestamp),
      partitionLeaderEpoch,
      inTransaction: (attributes & TRANSACTIONAL_MASK) > 0,
      isControlBatch,
      lastOffsetDelta,
      producerId,
      producerEpoch,
      firstSequence,
      maxTimestamp,
      timestampType,
      magicByte,
    };
    const count = this.int32();
    if (count < -1) throw UNSUPPORTED; // kafkajs: -1 is none, below that an error
    for (let i = 0; i < count; i++) {
      if (this.at >= batchEnd) throw UNSUPPORTED;
      const length = this.varInt();
      if (length < 0) throw UNSUPPORTED;
      const recordEnd = this.at + length;
      if (recordEnd > batchEnd) throw UNSUPPORTED;
      const recordAttributes = this.int8();
      const timestampDelta = this.varLong();
      const offset = String(checkedSum(firstOffset, this.varInt()));
      const timestamp =
        timestampType === LOG_APPEND_TIME ? maxTimestamp : String(checkedSum(firstTimestamp, timestampDelta));
      const key = this.varIntBytes();
      const value = this.varIntBytes();
      const headers: FetchedMessage['headers'] = {};
      const headerCount = this.varInt();
      if (headerCount < -1) throw UNSUPPORTED;
      for (let h = 0; h < headerCount; h++) {
        const name = this.varIntString();
        const headerValue = this.varIntBytes();
        const seen = headers[name];
        if (seen === undefined) headers[name] = headerValue;
        else headers[name] = Array.isArray(seen) ? [...seen, headerValue] : [seen, headerValue];
      }
      if (this.at > recordEnd) throw UNSUPPORTED;
      this.at = recordEnd; // kafkajs reads each record from its own slice: trailing bytes are skipped
      messages.push({
        magicByte,
        attributes: recordAttributes,
        timestamp,
        offset,
        key,
        value,
        headers,
        isControlRecord: isControlBatch,
        batchContext,
      });
    }
    this.at = batchEnd;
  }

  /** A header key; null keys and names Object.prototype has are left to kafkajs. */
  private varIntString(): string {
    const name = this.utf8(this.varInt());
    if (name in PLAIN) throw UNSUPPORTED;
    return name;
  }
}
