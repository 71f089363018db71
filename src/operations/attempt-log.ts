import type { AttemptEntry, AttemptOutcome } from '../records/delivery-attempt';

export interface AttemptQuery {
  messageId?: string;
  outcome?: AttemptOutcome;
  limit: number;
}

/** The last `capacity` entries of one destination, overwriting the oldest. */
class Ring {
  private readonly items: AttemptEntry[] = [];
  private next = 0;

  constructor(private readonly capacity: number) {}

  add(entry: AttemptEntry): void {
    if (this.items.length < this.capacity) this.items.push(entry);
    else this.items[this.next] = entry;
    this.next = (this.next + 1) % this.capacity;
  }

  /** Oldest first. */
  all(): AttemptEntry[] {
    return this.items.length < this.capacity
      ? [...this.items]
      : [...this.items.slice(this.next), ...this.items.slice(0, this.next)];
  }
}

/**
 * Recent attempts per destination, bounded: the last `perDestination` attempts of each
 * destination (1,000 by default, HOOKLINE_ATTEMPT_INDEX_PER_DESTINATION), so memory grows with
 * the number of destinations, never with traffic. Older attempts are only on the topic.
 */
export class AttemptLog {
  private readonly rings = new Map<string, Ring>();

  constructor(private readonly options: { perDestination: number }) {}

  add(entry: AttemptEntry): void {
    let ring = this.rings.get(entry.destinationId);
    if (!ring) this.rings.set(entry.destinationId, (ring = new Ring(this.options.perDestination)));
    ring.add(entry);
  }

  has(destinationId: string): boolean {
    return this.rings.has(destinationId);
  }

  /** Matching attempts of one destination, newest first (by attempt time, then arrival). */
  query(destinationId: string, query: AttemptQuery): AttemptEntry[] {
    const entries = this.rings.get(destinationId)?.all() ?? [];
    return entries
      .map((entry, arrival) => ({ entry, arrival }))
      .filter(
        ({ entry }) =>
          (query.messageId === undefined || entry.messageId === query.messageId) &&
          (query.outcome === undefined || entry.outcome === query.outcome),
      )
      .sort((a, b) => b.entry.atMs - a.entry.atMs || b.arrival - a.arrival)
      .slice(0, query.limit)
      .map(({ entry }) => entry);
  }

  get destinationCount(): number {
    return this.rings.size;
  }
}
