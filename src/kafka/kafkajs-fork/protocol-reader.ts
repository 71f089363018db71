/**
 * The primitives of Kafka's protocol, read from `raw` at `at`, for the decoders that stand in for
 * kafkajs's (fetch-response.ts). Anything a decoder does not handle throws `UNSUPPORTED`, which
 * means "leave this to kafkajs"; so does reading past the end (Buffer's readers throw a RangeError).
 */

/** Thrown inside a decoder: leave this response to kafkajs. */
export const UNSUPPORTED = new Error('not decoded here');

export class ProtocolReader {
  protected at = 0;

  constructor(protected readonly raw: Buffer) {}

  protected int8(): number {
    const value = this.raw.readInt8(this.at);
    this.at += 1;
    return value;
  }

  protected int16(): number {
    const value = this.raw.readInt16BE(this.at);
    this.at += 2;
    return value;
  }

  protected int32(): number {
    const value = this.raw.readInt32BE(this.at);
    this.at += 4;
    return value;
  }

  /** An int64 as kafkajs prints it (decimal, signed). */
  protected int64(): string {
    const high = this.raw.readInt32BE(this.at);
    const low = this.raw.readUInt32BE(this.at + 4);
    this.at += 8;
    if (high >= -0x200000 && high < 0x200000) return String(high * 0x1_0000_0000 + low);
    return String((BigInt(high) << 32n) + BigInt(low));
  }

  /** An int64 that offsets and timestamps are added to: exact as a number, or not decoded here. */
  protected safeInt64(): number {
    const high = this.raw.readInt32BE(this.at);
    const low = this.raw.readUInt32BE(this.at + 4);
    this.at += 8;
    if (high < -0x200000 || high >= 0x200000) throw UNSUPPORTED;
    return high * 0x1_0000_0000 + low;
  }

  protected array<T>(read: () => T): T[] {
    const length = this.int32();
    if (length === -1) return [];
    if (length < 0) throw UNSUPPORTED;
    const items = new Array<T>(length);
    for (let i = 0; i < length; i++) items[i] = read();
    return items;
  }

  protected string(): string | null {
    const length = this.int16();
    if (length === -1) return null;
    return this.utf8(length);
  }

  protected utf8(length: number): string {
    if (length < 0 || this.at + length > this.raw.length) throw UNSUPPORTED;
    const text = this.raw.toString('utf8', this.at, this.at + length);
    this.at += length;
    return text;
  }

  /** A zig-zag varint of at most 5 bytes (kafkajs's readVarInt on what Kafka writes). */
  protected varInt(): number {
    let result = 0;
    for (let shift = 0; shift <= 28; shift += 7) {
      const byte = this.byte();
      result |= (byte & 0x7f) << shift;
      if (byte < 0x80) return (result >>> 1) ^ -(result & 1);
    }
    throw UNSUPPORTED;
  }

  /** A zig-zag varlong of at most 7 bytes (49 bits: exact as a number), else not decoded here. */
  protected varLong(): number {
    let result = 0;
    for (let shift = 0; shift <= 42; shift += 7) {
      const byte = this.byte();
      result += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return result % 2 === 0 ? result / 2 : -(result + 1) / 2;
    }
    throw UNSUPPORTED;
  }

  protected byte(): number {
    if (this.at >= this.raw.length) throw UNSUPPORTED;
    return this.raw[this.at++]!;
  }

  protected varIntBytes(): Buffer | null {
    const length = this.varInt();
    if (length === -1) return null;
    if (length < 0 || this.at + length > this.raw.length) throw UNSUPPORTED;
    const bytes = this.raw.subarray(this.at, this.at + length);
    this.at += length;
    return bytes;
  }
}

/** `a + b` when exact (kafkajs adds 64-bit integers), else not decoded here. */
export function checkedSum(a: number, b: number): number {
  const sum = a + b;
  if (!Number.isSafeInteger(sum)) throw UNSUPPORTED;
  return sum;
}
