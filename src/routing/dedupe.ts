import { hash } from 'node:crypto';
import type { Clock } from '../core/clock';

export interface DedupeWindowOptions {
  /** How long a messageId is remembered. */
  windowMs: number;
  /** Upper bound of remembered ids; the oldest are forgotten first. 0 remembers none. */
  maxEntries: number;
  clock: Clock;
}

const EMPTY = -1;

/**
 * Remembers recently routed message ids so that a client's retry of the same event (same
 * source and messageId) is routed once. In memory and per process: after a rebalance or a
 * restart a duplicate can get through, and delivery stays at-least-once.
 *
 * Memory is about 24 bytes an id, whatever the id's length (issue 16: a Map of the id strings
 * took ~150 MB for the default 1,000,000 ids): each id is kept as 64 bits of its SHA-256 in typed
 * arrays, a ring in claim order (oldest first) with an open-addressing index over it. Two ids
 * share 64 bits with a probability of about n² / 2^65 (3 × 10^-8 for a full window of 1,000,000);
 * that would route the second once less, which the hash being cryptographic keeps beyond reach of
 * a client that picks its own messageIds.
 *
 * The whole bound is allocated, and its pages written, when the window is made: the process's
 * footprint is known from its start (a `maxEntries` too large for the memory limit fails at once,
 * not hours later as traffic fills the window), and no resize ever rehashes a million entries on
 * the event loop. A released claim (rare: its routing failed) keeps its place until the ring is
 * full, which then compacts it away in place, so exactly the `maxEntries` newest claims are kept,
 * as a Map of them would.
 */
export class DedupeWindow {
  private readonly capacity: number;
  /** The ring: 64-bit digest (high, low word) and claim time; a released claim's time is NaN. */
  private readonly hi: Uint32Array;
  private readonly lo: Uint32Array;
  private readonly at: Float64Array;
  private head = 0;
  private length = 0;
  private live = 0;
  /** Open addressing, linear probing: ring positions, or EMPTY. A power of two, at least twice the ring. */
  private readonly slots: Int32Array;
  private readonly mask: number;

  constructor(private readonly options: DedupeWindowOptions) {
    const capacity = options.maxEntries;
    this.capacity = capacity;
    // fill() writes every page now: typed arrays are zeroed lazily by the kernel otherwise.
    this.hi = new Uint32Array(capacity).fill(0);
    this.lo = new Uint32Array(capacity).fill(0);
    this.at = new Float64Array(capacity).fill(Number.NaN);
    let size = 1;
    while (size < capacity * 2) size *= 2;
    this.slots = new Int32Array(capacity === 0 ? 0 : size).fill(EMPTY);
    this.mask = size - 1;
  }

  has(key: string): boolean {
    this.evict();
    return this.find(key) !== EMPTY;
  }

  /**
   * Remembers the id and says whether it was new. Check and mark are one step, so two copies
   * handled at the same time cannot both pass; `release` undoes a claim whose routing failed.
   */
  claim(key: string): boolean {
    this.evict();
    const [h, l] = digest(key);
    if (this.slotOf(h, l) !== EMPTY) return false;
    if (this.options.maxEntries === 0) return true;
    if (this.length === this.capacity) {
      if (this.live < this.length)
        this.compact(); // released claims leave the ring
      else this.dropOldest();
    }
    const pos = (this.head + this.length) % this.capacity;
    this.hi[pos] = h;
    this.lo[pos] = l;
    this.at[pos] = this.options.clock.now();
    this.length++;
    this.live++;
    this.insertSlot(pos);
    return true;
  }

  release(key: string): void {
    const slot = this.find(key);
    if (slot === EMPTY) return;
    this.at[this.slots[slot]!] = Number.NaN; // stays in the ring until it is the oldest
    this.deleteSlot(slot);
    this.live--;
  }

  get size(): number {
    return this.live;
  }

  private evict(): void {
    const oldestAllowed = this.options.clock.now() - this.options.windowMs;
    while (this.length > 0) {
      const at = this.at[this.head]!;
      if (at >= oldestAllowed) break; // NaN (released) compares false: dropped too
      this.dropOldest();
    }
  }

  private dropOldest(): void {
    const pos = this.head;
    if (!Number.isNaN(this.at[pos]!)) {
      let slot = this.lo[pos]! & this.mask;
      while (this.slots[slot] !== pos) slot = (slot + 1) & this.mask;
      this.deleteSlot(slot);
      this.live--;
    }
    this.head = (this.head + 1) % this.capacity;
    this.length--;
  }

  private find(key: string): number {
    const [h, l] = digest(key);
    return this.slotOf(h, l);
  }

  private slotOf(h: number, l: number): number {
    if (this.capacity === 0) return EMPTY;
    for (let slot = l & this.mask; ; slot = (slot + 1) & this.mask) {
      const pos = this.slots[slot]!;
      if (pos === EMPTY) return EMPTY;
      if (this.hi[pos] === h && this.lo[pos] === l) return slot;
    }
  }

  private insertSlot(pos: number): void {
    let slot = this.lo[pos]! & this.mask;
    while (this.slots[slot] !== EMPTY) slot = (slot + 1) & this.mask;
    this.slots[slot] = pos;
  }

  /** Backward-shift deletion: later entries of the probe run move up, so no tombstones are needed. */
  private deleteSlot(slot: number): void {
    let hole = slot;
    for (let next = (hole + 1) & this.mask; this.slots[next] !== EMPTY; next = (next + 1) & this.mask) {
      const home = this.lo[this.slots[next]!]! & this.mask;
      if (((next - home) & this.mask) >= ((next - hole) & this.mask)) {
        this.slots[hole] = this.slots[next]!;
        hole = next;
      }
    }
    this.slots[hole] = EMPTY;
  }

  /**
   * Drops released claims from the ring, in place: live entries move towards the head, keeping
   * their order, and the index is built again over their new places.
   */
  private compact(): void {
    let n = 0;
    for (let i = 0; i < this.length; i++) {
      const from = (this.head + i) % this.capacity;
      if (Number.isNaN(this.at[from]!)) continue;
      const to = (this.head + n++) % this.capacity; // never ahead of `from`
      this.hi[to] = this.hi[from]!;
      this.lo[to] = this.lo[from]!;
      this.at[to] = this.at[from]!;
    }
    this.length = this.live = n;
    this.slots.fill(EMPTY);
    for (let i = 0; i < n; i++) this.insertSlot((this.head + i) % this.capacity);
  }
}

/** 64 bits of the key's SHA-256, as two unsigned 32-bit words. */
function digest(key: string): [number, number] {
  const bytes = hash('sha256', key, 'buffer');
  return [bytes.readUInt32LE(0), bytes.readUInt32LE(4)];
}
