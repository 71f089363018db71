/**
 * The kept attempt records of every destination, each destination's oldest first, with a cap per
 * destination and a byte budget for all of them. Over the budget, a destination with the most
 * kept records loses its oldest: destinations with few attempts keep theirs, the busiest share
 * what is left evenly (each keeps about the same number). Finding one with the most is O(1):
 * destinations are bucketed by how many records they keep.
 */

/** What a kept record costs besides its bytes: the string's header and its slot, roughly. */
export const KEPT_OVERHEAD_BYTES = 40;

const cost = (item: string) => item.length + KEPT_OVERHEAD_BYTES;

/** One destination's records, oldest first (a queue over an array). */
class Ring {
  private items: string[] = [];
  private head = 0;

  get size(): number {
    return this.items.length - this.head;
  }

  push(item: string): void {
    this.items.push(item);
  }

  shift(): string {
    const item = this.items[this.head]!;
    this.items[this.head++] = '';
    if (this.head >= 64 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  all(): string[] {
    return this.items.slice(this.head);
  }
}

export interface AttemptRingsOptions {
  /** Records kept per destination at most. */
  perDestination: number;
  /** Bytes all kept records may take, `KEPT_OVERHEAD_BYTES` each included. */
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

  add(destinationId: string, item: string): void {
    let ring = this.rings.get(destinationId);
    if (!ring) this.rings.set(destinationId, (ring = new Ring()));
    ring.push(item);
    this.rebucket(ring, ring.size - 1);
    this.keptBytes += cost(item);
    this.keptCount++;
    if (ring.size > this.options.perDestination) this.dropOldest(ring);
    while (this.keptBytes > this.options.maxBytes && this.keptCount > 0) this.dropOldest(this.mostKept());
  }

  /** A destination's kept records, oldest first. */
  get(destinationId: string): string[] {
    return this.rings.get(destinationId)?.all() ?? [];
  }

  has(destinationId: string): boolean {
    return this.rings.has(destinationId);
  }

  get destinationCount(): number {
    return this.rings.size;
  }

  get bytes(): number {
    return this.keptBytes;
  }

  get count(): number {
    return this.keptCount;
  }

  private dropOldest(ring: Ring): void {
    const item = ring.shift();
    this.rebucket(ring, ring.size + 1);
    this.keptBytes -= cost(item);
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
