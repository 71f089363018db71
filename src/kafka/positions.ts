/** Where a record sits on a topic. Offsets are decimal strings, as kafkajs reports them. */
export interface RecordPosition {
  partition: number;
  offset: string;
}

export function positionKey(position: RecordPosition): string {
  return `${position.partition}:${position.offset}`;
}

/** One partition's part of a read: from `start` (inclusive) to `end` (exclusive). */
export interface PartitionRange {
  partition: number;
  start: string;
  /** The high watermark observed when the read began. */
  end: string;
}

/**
 * The part of each partition to read, given where to start (the low watermark, or the offset
 * `fetchTopicOffsetsByTimestamp` found) and the high watermarks observed at start. A start below
 * the low watermark (retention deleted it meanwhile) is raised to it; a partition with nothing
 * to read gets `start = end`.
 */
export function readRanges(
  starts: { partition: number; offset: string }[],
  watermarks: { partition: number; low: string; high: string }[],
): PartitionRange[] {
  const startOf = new Map(starts.map((s) => [s.partition, BigInt(s.offset)]));
  return watermarks
    .map((w) => {
      const low = BigInt(w.low);
      const high = BigInt(w.high);
      const wanted = startOf.get(w.partition) ?? low;
      const start = wanted < low ? low : wanted > high ? high : wanted;
      return { partition: w.partition, start: String(start), end: String(high) };
    })
    .sort((a, b) => a.partition - b.partition);
}

/** Records in a range: what a bounded read will go through. */
export function rangeSize(ranges: PartitionRange[]): number {
  return ranges.reduce((n, r) => n + Number(BigInt(r.end) - BigInt(r.start)), 0);
}

export type CursorVerdict = 'take' | 'seen' | 'past_end';

/**
 * Decides, per partition, which fetched records are new: at or after the range's start, after
 * every record taken so far (a seek or a re-fetch can hand a record over twice) and, when the
 * read is bounded, before the range's end. A partition that appears later (added to the topic)
 * is read from its first record when following live, and not at all by a bounded read.
 */
export class PartitionCursors {
  private readonly next = new Map<number, bigint>();
  private readonly ends = new Map<number, bigint>();
  private readonly bounded: boolean;

  constructor(ranges: PartitionRange[], options: { bounded: boolean }) {
    this.bounded = options.bounded;
    for (const r of ranges) {
      this.next.set(r.partition, BigInt(r.start));
      if (options.bounded) this.ends.set(r.partition, BigInt(r.end));
    }
  }

  verdict(partition: number, offset: string): CursorVerdict {
    const value = BigInt(offset);
    const end = this.ends.get(partition);
    if (this.bounded && (end === undefined || value >= end)) return 'past_end';
    if (value < (this.next.get(partition) ?? 0n)) return 'seen';
    this.next.set(partition, value + 1n);
    return 'take';
  }

  /** Per partition, the offset of the next record to take (a read resumed there misses nothing). */
  nextOffsets(): Map<number, string> {
    return new Map([...this.next].map(([partition, offset]) => [partition, String(offset)]));
  }

  /** True when a bounded read has taken every record of this partition's range. */
  finished(partition: number): boolean {
    const end = this.ends.get(partition);
    return end !== undefined && (this.next.get(partition) ?? 0n) >= end;
  }
}
