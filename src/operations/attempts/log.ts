import { UndecodableRecordError } from '../../core/errors';
import type { AttemptEntry, AttemptOutcome } from '../../records/delivery-attempt';
import { AttemptRings } from './rings';

export interface AttemptQuery {
  messageId?: string;
  outcome?: AttemptOutcome;
  limit: number;
  /**
   * Passed on by another process of a shared index (HOOKLINE_ATTEMPT_INDEX=shared): answer from
   * this process's share, never pass it on again.
   */
  forwarded?: boolean;
}

/** What a query of one destination's recent attempts finds. */
export interface AttemptsFound {
  /** Whether any attempt of the destination is kept (a deleted destination's still are, for a while). */
  known: boolean;
  /** Matching attempts, newest first. */
  attempts: AttemptEntry[];
}

/**
 * Where the admin API reads recent attempts: this process's `AttemptLog`; in a child of
 * HOOKLINE_WORKERS that keeps none, the log of the child that does (src/process/child.ts); with
 * HOOKLINE_ATTEMPT_INDEX=shared, this process's share or the process keeping the destination's
 * (shared-index.ts); with `false`, none (attempt_index_off).
 */
export interface AttemptSource {
  find(destinationId: string, query: AttemptQuery): Promise<AttemptsFound>;
}

export interface AttemptLogOptions {
  /** Attempts kept per destination. */
  perDestination: number;
  /** Bytes all destinations' kept attempts may take (see `AttemptRings`). */
  maxBytes: number;
  /**
   * A kept record's bytes (a copy of its own) → its entry. Rejects with UndecodableRecordError
   * for a record that cannot be decoded (left out of the answer), with another error when
   * decoding could not be tried now (the registry is away: the query fails with it).
   */
  decode(bytes: Buffer): Promise<AttemptEntry>;
  /** Told of each record a query left out as undecodable. */
  onUndecodable?(err: UndecodableRecordError): void;
}

/**
 * Recent attempts per destination, bounded twice: the last `perDestination` attempts of each
 * destination (1,000 by default, HOOKLINE_ATTEMPT_INDEX_PER_DESTINATION), and `maxBytes` for all
 * of them (HOOKLINE_ATTEMPT_INDEX_MAX_BYTES), which the busiest destinations share when there are
 * many. The kept records' memory grows neither with traffic nor with the number of destinations.
 * Older attempts are only on the topic.
 *
 * Every process keeping it (one child of a group of HOOKLINE_WORKERS children) reads every
 * attempt of the cluster, or of its share (HOOKLINE_ATTEMPT_INDEX=shared), and most are never
 * asked for: an attempt is kept as its record's bytes (`addRecord`)
 * and decoded only by a query that reads it.
 */
export class AttemptLog implements AttemptSource {
  private readonly rings: AttemptRings;
  private recordsRead = 0;

  constructor(private readonly options: AttemptLogOptions) {
    this.rings = new AttemptRings(options);
  }

  /** Keeps a copy of an attempt record's value (`bytes` may be a view of a fetch response). */
  addRecord(destinationId: string, bytes: Buffer): void {
    this.rings.add(destinationId, bytes);
    this.recordsRead++;
  }

  /** Records added since the log was made, kept or not since (`hookline_attempt_index_read_total`). */
  get read(): number {
    return this.recordsRead;
  }

  has(destinationId: string): boolean {
    return this.rings.has(destinationId);
  }

  /** Forgets the destinations `which` picks (a shared index's partitions gone to another process). */
  forget(which: (destinationId: string) => boolean): number {
    return this.rings.forget(which);
  }

  /** What the kept attempts take: their count and bytes (as the budget counts them). */
  get kept(): { count: number; bytes: number } {
    return { count: this.rings.count, bytes: this.rings.bytes };
  }

  /** Matching attempts of one destination, newest first (by attempt time, then arrival). */
  async query(destinationId: string, query: AttemptQuery): Promise<AttemptEntry[]> {
    const kept = this.rings.get(destinationId);
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

  async find(destinationId: string, query: AttemptQuery): Promise<AttemptsFound> {
    if (!this.has(destinationId)) return { known: false, attempts: [] };
    return { known: true, attempts: await this.query(destinationId, query) };
  }

  get destinationCount(): number {
    return this.rings.destinationCount;
  }

  private async entry(bytes: Buffer): Promise<AttemptEntry | undefined> {
    try {
      return await this.options.decode(bytes);
    } catch (err) {
      if (!(err instanceof UndecodableRecordError)) throw err;
      this.options.onUndecodable?.(err);
      return undefined;
    }
  }
}
