/**
 * In-order commits for out-of-order work. Offsets of one partition are tracked in the order they
 * were fetched; they complete in any order; the committable offset is one past the highest offset
 * below which everything has completed (Kafka commits "the next offset to read").
 */
export class PartitionOffsets {
  /** Fetched offsets in fetch order, with their completion state. */
  private readonly window: { offset: number; done: boolean }[] = [];
  private head = 0;
  private readonly byOffset = new Map<number, { offset: number; done: boolean }>();
  private next: number | undefined;
  private committed: number | undefined;
  private open = 0;
  private lastTracked: number | undefined;

  track(offset: number): void {
    if (this.has(offset))
      throw new Error(`offset ${offset} tracked out of order (after ${this.lastTracked})`);
    this.lastTracked = offset;
    const entry = { offset, done: false };
    this.window.push(entry);
    this.byOffset.set(offset, entry);
    this.open++;
  }

  /**
   * True when the offset was already handed out: offsets are tracked in increasing order, so
   * anything at or below the last tracked one is in flight or done (a re-fetch after a rebalance).
   */
  has(offset: number): boolean {
    return this.lastTracked !== undefined && offset <= this.lastTracked;
  }

  /** Marks an offset done; returns true when this moved the committable offset. */
  complete(offset: number): boolean {
    const entry = this.byOffset.get(offset);
    if (!entry || entry.done) return false;
    entry.done = true;
    this.open--;
    let moved = false;
    while (this.head < this.window.length && this.window[this.head]!.done) {
      const done = this.window[this.head++]!;
      this.byOffset.delete(done.offset);
      this.next = done.offset + 1;
      moved = true;
    }
    if (this.head > 1024 && this.head * 2 > this.window.length) {
      this.window.splice(0, this.head);
      this.head = 0;
    }
    return moved;
  }

  /** The offset to commit, when it is ahead of what was last committed. */
  pendingCommit(): number | undefined {
    if (this.next === undefined || this.next === this.committed) return undefined;
    return this.next;
  }

  markCommitted(offset: number): void {
    if (this.committed === undefined || offset > this.committed) this.committed = offset;
  }

  /** Offsets fetched and not yet completed. */
  get inFlight(): number {
    return this.open;
  }
}

/** The offsets to commit now, of trackers keyed `<topic>:<partition>`. */
export function pendingCommits(
  partitions: ReadonlyMap<string, PartitionOffsets>,
): { topic: string; partition: number; offset: string }[] {
  const offsets: { topic: string; partition: number; offset: string }[] = [];
  for (const [key, tracker] of partitions) {
    const next = tracker.pendingCommit();
    if (next === undefined) continue;
    const i = key.lastIndexOf(':');
    offsets.push({ topic: key.slice(0, i), partition: Number(key.slice(i + 1)), offset: String(next) });
  }
  return offsets;
}
