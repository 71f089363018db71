/**
 * The kept attempt records of every destination, each destination's oldest first, with a cap per
 * destination and a byte budget for all of them. Over the budget, a destination with the most
 * kept records loses its oldest: destinations with few attempts keep theirs, the busiest share
 * what is left evenly (each keeps about the same number). Finding one with the most is O(1):
 * destinations are bucketed by how many records they keep.
 *
 * The records' bytes are copied into chunks of a few KB outside the JavaScript heap, a dozen
 * records to a chunk, and their places kept in typed arrays: keeping a record makes no object.
 * A record lives for as long as its destination's next thousand attempts take, long enough to be
 * promoted out of the young generation, so one heap object per record was one for the old
 * generation's collector to mark and sweep (measured at 3–6 µs of CPU per delivered event).
 */

/** A chunk's size once a destination has a few records: about a dozen attempt records. */
export const CHUNK_BYTES = 4_096;

/** Bytes of a record's place (its offset and length). */
const SLOT_BYTES = 8;

const EMPTY = Buffer.alloc(0);

/**
 * One destination's records, oldest first. Records are written one after the other into the
 * newest chunk; a chunk is let go once its last record is dropped. A destination's first chunk
 * is the size of its first record, each next one twice the last, up to CHUNK_BYTES (a record
 * larger than that gets a chunk of its own size): a quiet destination's few records take little
 * more than their bytes.
 */
class Ring {
  /** Chunks, oldest first, from `chunkHead` on (a queue over an array). */
  private chunks: Buffer[] = [];
  /** Records still kept in each chunk. */
  private chunkRecords: number[] = [];
  private chunkHead = 0;
  /** Bytes written into the newest chunk. */
  private tailUsed = 0;
  /** Each record's offset in its chunk and its length, a circular queue from `first`. */
  private offsets = new Int32Array(4);
  private lengths = new Int32Array(4);
  private first = 0;
  size = 0;
  /** Memory the ring's records take: its chunks and record places. */
  bytes = 4 * SLOT_BYTES;

  /** Copies a record in; returns the change in `bytes`. */
  push(record: Buffer): number {
    const before = this.bytes;
    const length = record.length;
    const last = this.chunks.length - 1;
    let chunk = last >= this.chunkHead ? this.chunks[last]! : undefined;
    if (!chunk || this.tailUsed + length > chunk.length) {
      const size = Math.max(length, Math.min(CHUNK_BYTES, (chunk?.length ?? 0) * 2));
      chunk = Buffer.allocUnsafeSlow(size);
      this.chunks.push(chunk);
      this.chunkRecords.push(0);
      this.tailUsed = 0;
      this.bytes += size;
    }
    if (this.size === this.offsets.length) this.resizeSlots(this.offsets.length * 2);
    const slot = (this.first + this.size) & (this.offsets.length - 1);
    record.copy(chunk, this.tailUsed);
    this.offsets[slot] = this.tailUsed;
    this.lengths[slot] = length;
    this.tailUsed += length;
    this.chunkRecords[this.chunkRecords.length - 1]!++;
    this.size++;
    return this.bytes - before;
  }

  /** Drops the oldest record; returns the change in `bytes`. */
  shift(): number {
    const before = this.bytes;
    this.first = (this.first + 1) & (this.offsets.length - 1);
    this.size--;
    const head = this.chunkHead;
    if (--this.chunkRecords[head]! === 0) {
      // The oldest chunk has no record left: the newest one only when the ring is empty.
      this.bytes -= this.chunks[head]!.length;
      this.chunks[head] = EMPTY;
      this.chunkHead++;
      if (this.size === 0) {
        this.chunks = [];
        this.chunkRecords = [];
        this.chunkHead = 0;
        this.tailUsed = 0;
      } else if (this.chunkHead >= 16 && this.chunkHead * 2 >= this.chunks.length) {
        this.chunks = this.chunks.slice(this.chunkHead);
        this.chunkRecords = this.chunkRecords.slice(this.chunkHead);
        this.chunkHead = 0;
      }
    }
    if (this.offsets.length > 4 && this.size * 4 <= this.offsets.length)
      this.resizeSlots(this.offsets.length / 2);
    return this.bytes - before;
  }

  /** Copies of the records, oldest first. */
  all(): Buffer[] {
    const out: Buffer[] = [];
    let chunk = this.chunkHead;
    let left = this.chunkRecords[chunk] ?? 0;
    for (let i = 0; i < this.size; i++) {
      while (left === 0) left = this.chunkRecords[++chunk]!;
      const slot = (this.first + i) & (this.offsets.length - 1);
      const offset = this.offsets[slot]!;
      out.push(Buffer.from(this.chunks[chunk]!.subarray(offset, offset + this.lengths[slot]!)));
      left--;
    }
    return out;
  }

  /** New record places (a power of two, at least `size`), the records' in order from 0. */
  private resizeSlots(capacity: number): void {
    const offsets = new Int32Array(capacity);
    const lengths = new Int32Array(capacity);
    const mask = this.offsets.length - 1;
    for (let i = 0; i < this.size; i++) {
      offsets[i] = this.offsets[(this.first + i) & mask]!;
      lengths[i] = this.lengths[(this.first + i) & mask]!;
    }
    this.bytes += (capacity - this.offsets.length) * SLOT_BYTES;
    this.offsets = offsets;
    this.lengths = lengths;
    this.first = 0;
  }
}

export interface AttemptRingsOptions {
  /** Records kept per destination at most. */
  perDestination: number;
  /** Bytes all kept records may take: their chunks and places. */
  maxBytes: number;
}

export class AttemptRings {
  private readonly rings = new Map<string, Ring>();
  /** `bySize[n]`: the destinations keeping n records (n ≥ 1). */
  private readonly bySize: (Set<Ring> | undefined)[] = [];
  private largest = 0;
  private keptBytes = 0;
  private keptCount = 0;

  constructor(private readonly options: AttemptRingsOptions) {}

  /** Keeps a copy of `record` (the caller's buffer may be reused once this returns). */
  add(destinationId: string, record: Buffer): void {
    let ring = this.rings.get(destinationId);
    if (!ring) {
      this.rings.set(destinationId, (ring = new Ring()));
      this.keptBytes += ring.bytes;
    }
    this.keptBytes += ring.push(record);
    this.rebucket(ring, ring.size - 1);
    this.keptCount++;
    if (ring.size > this.options.perDestination) this.dropOldest(ring);
    while (this.keptBytes > this.options.maxBytes && this.keptCount > 0) this.dropOldest(this.mostKept());
  }

  /** Forgets the destinations `which` picks and all they keep; returns how many there were. */
  forget(which: (destinationId: string) => boolean): number {
    let forgotten = 0;
    for (const [destinationId, ring] of this.rings) {
      if (!which(destinationId)) continue;
      if (ring.size > 0) this.bySize[ring.size]!.delete(ring);
      this.keptBytes -= ring.bytes;
      this.keptCount -= ring.size;
      this.rings.delete(destinationId);
      forgotten++;
    }
    return forgotten;
  }

  /** Copies of a destination's kept records, oldest first. */
  get(destinationId: string): Buffer[] {
    return this.rings.get(destinationId)?.all() ?? [];
  }

  has(destinationId: string): boolean {
    return this.rings.has(destinationId);
  }

  get destinationCount(): number {
    return this.rings.size;
  }

  /** Memory the kept records take: every destination's chunks and record places. */
  get bytes(): number {
    return this.keptBytes;
  }

  get count(): number {
    return this.keptCount;
  }

  private dropOldest(ring: Ring): void {
    this.keptBytes += ring.shift();
    this.rebucket(ring, ring.size + 1);
    this.keptCount--;
  }

  private mostKept(): Ring {
    while (this.largest > 0 && !this.bySize[this.largest]?.size) this.largest--;
    return this.bySize[this.largest]!.values().next().value!;
  }

  /** Moves a ring that kept `before` records to the bucket of its size now. */
  private rebucket(ring: Ring, before: number): void {
    const after = ring.size;
    if (before > 0) this.bySize[before]!.delete(ring);
    if (after > 0) (this.bySize[after] ??= new Set()).add(ring);
    if (after > this.largest) this.largest = after;
  }
}
