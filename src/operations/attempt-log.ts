import { UndecodableRecordError } from '../core/errors';
import type { AttemptEntry, AttemptOutcome } from '../records/delivery-attempt';

export interface AttemptQuery {
  messageId?: string;
  outcome?: AttemptOutcome;
  limit: number;
}

/**
 * The last `capacity` attempt records of one destination, overwriting the oldest. Each is kept as
 * its bytes in a latin1 string (one character per byte).
 */
class Ring {
  private readonly items: string[] = [];
  private next = 0;

  constructor(private readonly capacity: number) {}

  add(item: string): void {
    if (this.items.length < this.capacity) this.items.push(item);
    else this.items[this.next] = item;
    this.next = (this.next + 1) % this.capacity;
  }

  /** Oldest first. */
  all(): string[] {
    return this.items.length < this.capacity
      ? [...this.items]
      : [...this.items.slice(this.next), ...this.items.slice(0, this.next)];
  }
}

export interface AttemptLogOptions {
  /** Attempts kept per destination. */
  perDestination: number;
  /**
   * A kept record (its bytes as a latin1 string) → its entry. Rejects with UndecodableRecordError
   * for a record that cannot be decoded (left out of the answer), with another error when
   * decoding could not be tried now (the registry is away: the query fails with it).
   */
  decode(bytes: string): Promise<AttemptEntry>;
  /** Told of each record a query left out as undecodable. */
  onUndecodable?(err: UndecodableRecordError): void;
}

/**
 * Recent attempts per destination, bounded: the last `perDestination` attempts of each
 * destination (1,000 by default, HOOKLINE_ATTEMPT_INDEX_PER_DESTINATION), so memory grows with
 * the number of destinations, never with traffic. Older attempts are only on the topic.
 *
 * Every process reads every attempt of the cluster, and most are never asked for: an attempt is
 * kept as its record's bytes (`addRecord`) and decoded only by a query that reads it.
 */
export class AttemptLog {
  private readonly rings = new Map<string, Ring>();

  constructor(private readonly options: AttemptLogOptions) {}

  /** Keeps an attempt record's value, given as a latin1 string of its bytes. */
  addRecord(destinationId: string, bytes: string): void {
    this.ring(destinationId).add(bytes);
  }

  has(destinationId: string): boolean {
    return this.rings.has(destinationId);
  }

  /** Matching attempts of one destination, newest first (by attempt time, then arrival). */
  async query(destinationId: string, query: AttemptQuery): Promise<AttemptEntry[]> {
    const kept = this.rings.get(destinationId)?.all() ?? [];
    const entries = await Promise.all(kept.map((item) => this.entry(item)));
    return entries
      .map((entry, arrival) => ({ entry, arrival }))
      .filter(
        (e): e is { entry: AttemptEntry; arrival: number } =>
          e.entry !== undefined &&
          (query.messageId === undefined || e.entry.messageId === query.messageId) &&
          (query.outcome === undefined || e.entry.outcome === query.outcome),
      )
      .sort((a, b) => b.entry.atMs - a.entry.atMs || b.arrival - a.arrival)
      .slice(0, query.limit)
      .map(({ entry }) => entry);
  }

  get destinationCount(): number {
    return this.rings.size;
  }

  private ring(destinationId: string): Ring {
    let ring = this.rings.get(destinationId);
    if (!ring) this.rings.set(destinationId, (ring = new Ring(this.options.perDestination)));
    return ring;
  }

  private async entry(bytes: string): Promise<AttemptEntry | undefined> {
    try {
      return await this.options.decode(bytes);
    } catch (err) {
      if (!(err instanceof UndecodableRecordError)) throw err;
      this.options.onUndecodable?.(err);
      return undefined;
    }
  }
}
