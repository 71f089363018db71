/**
 * The fixed-size row the on-disk dead-letter index keeps per dead letter: what listings filter
 * and sort on, and where the dead letter's full record is in the values file. 48 bytes, so a
 * million dead letters are 48 MB of rows on disk, scanned in chunks, never held in memory.
 */
export const ROW_BYTES = 48;

export const ROW_KIND = { task: 1, undecodable: 2 } as const;
export type RowKind = (typeof ROW_KIND)[keyof typeof ROW_KIND];

export interface DlqRow {
  offset: number;
  deadLetteredAtMs: number;
  /** NaN while not redriven. */
  redrivenAtMs: number;
  /** Where the dead letter's JSON is in the partition's values file. */
  valuePos: number;
  valueLength: number;
  /** Dictionary code of the destination id (0 for an undecodable record). */
  destination: number;
  /** FNV-1a hash of the dead letter's id: a get scans these, then compares the ids themselves. */
  idHash: number;
  /** Dictionary code of the reason. */
  reason: number;
  kind: RowKind;
}

const AT = { offset: 0, deadLetteredAtMs: 8, redrivenAtMs: 16, valuePos: 24, valueLength: 32 } as const;
const AT2 = { destination: 36, idHash: 40, reason: 44, kind: 46 } as const;
export const REDRIVEN_AT = AT.redrivenAtMs;

export function encodeRow(row: DlqRow): Buffer {
  const buf = Buffer.alloc(ROW_BYTES);
  writeRow(buf, 0, row);
  return buf;
}

/** Writes `row` at byte `at` of `buf`. */
export function writeRow(buf: Buffer, at: number, row: DlqRow): void {
  buf.writeDoubleLE(row.offset, at + AT.offset);
  buf.writeDoubleLE(row.deadLetteredAtMs, at + AT.deadLetteredAtMs);
  buf.writeDoubleLE(row.redrivenAtMs, at + AT.redrivenAtMs);
  buf.writeDoubleLE(row.valuePos, at + AT.valuePos);
  buf.writeUInt32LE(row.valueLength, at + AT.valueLength);
  buf.writeUInt32LE(row.destination, at + AT2.destination);
  buf.writeUInt32LE(row.idHash, at + AT2.idHash);
  buf.writeUInt16LE(row.reason, at + AT2.reason);
  buf.writeUInt8(row.kind, at + AT2.kind);
  buf.writeUInt8(0, at + AT2.kind + 1);
}

/** The offset and dead-letter time of the row at byte `at`, without decoding the rest. */
export const rowOffset = (buf: Buffer, at: number) => buf.readDoubleLE(at + AT.offset);
export const rowTimeMs = (buf: Buffer, at: number) => buf.readDoubleLE(at + AT.deadLetteredAtMs);

/** The row at byte `at` of `buf`. */
export function decodeRow(buf: Buffer, at = 0): DlqRow {
  return {
    offset: buf.readDoubleLE(at + AT.offset),
    deadLetteredAtMs: buf.readDoubleLE(at + AT.deadLetteredAtMs),
    redrivenAtMs: buf.readDoubleLE(at + AT.redrivenAtMs),
    valuePos: buf.readDoubleLE(at + AT.valuePos),
    valueLength: buf.readUInt32LE(at + AT.valueLength),
    destination: buf.readUInt32LE(at + AT2.destination),
    idHash: buf.readUInt32LE(at + AT2.idHash),
    reason: buf.readUInt16LE(at + AT2.reason),
    kind: buf.readUInt8(at + AT2.kind) as RowKind,
  };
}

/** 32-bit FNV-1a of a string's UTF-16 code units. */
export function idHash(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * What a scan keeps, as dictionary codes and hashes. `destination`/`reason` of -1 name a value
 * the index has never seen: nothing matches.
 */
export interface RowFilter {
  kind?: RowKind;
  destination?: number;
  reason?: number;
  sinceMs?: number;
  untilMs?: number;
  idHashes?: ReadonlySet<number>;
  /** Only dead letters not redriven yet. */
  pending?: boolean;
}

/** Whether the row at byte `at` matches; reads only the fields the filter names. */
export function rowMatches(buf: Buffer, at: number, filter: RowFilter): boolean {
  if (filter.kind !== undefined && buf.readUInt8(at + AT2.kind) !== filter.kind) return false;
  if (filter.destination !== undefined && buf.readUInt32LE(at + AT2.destination) !== filter.destination) {
    return false;
  }
  if (filter.reason !== undefined && buf.readUInt16LE(at + AT2.reason) !== filter.reason) return false;
  if (filter.sinceMs !== undefined || filter.untilMs !== undefined) {
    const time = buf.readDoubleLE(at + AT.deadLetteredAtMs);
    if (filter.sinceMs !== undefined && time < filter.sinceMs) return false;
    if (filter.untilMs !== undefined && time >= filter.untilMs) return false;
  }
  if (filter.pending && !Number.isNaN(buf.readDoubleLE(at + AT.redrivenAtMs))) return false;
  if (filter.idHashes !== undefined && !filter.idHashes.has(buf.readUInt32LE(at + AT2.idHash))) return false;
  return true;
}

/**
 * Strings ↔ small codes (destination ids, reasons): rows hold the code. Grows with the number
 * of distinct values (destinations, reasons), not with the number of dead letters, and holds at
 * most `maxCode - 1` of them: any further value shares the code `maxCode` (free-text reasons of
 * undecodable records cannot make it grow without end). Code 0 is never given out.
 */
export class Dictionary {
  private readonly codes = new Map<string, number>();

  constructor(private readonly maxCode = 0xffff_ffff) {}

  code(value: string): number {
    const known = this.codes.get(value);
    if (known !== undefined) return known;
    if (this.codes.size + 1 >= this.maxCode) return this.maxCode;
    const code = this.codes.size + 1;
    this.codes.set(value, code);
    return code;
  }

  /** The code of a value: -1 if never seen, `maxCode` if it may be one of the values sharing it. */
  lookup(value: string): number {
    return this.codes.get(value) ?? (this.codes.size + 1 >= this.maxCode ? this.maxCode : -1);
  }
}
