import {
  commitKey,
  commitPointOf,
  encodeHoles,
  MAX_METADATA_CHARS,
  RELEASED_METADATA,
  type CommitPoint,
  type PartitionCommit,
} from './commit-holes';

export type { PartitionCommit } from './commit-holes';

interface Entry {
  offset: number;
  done: boolean;
  /** False only for a hole restored from the commit metadata that was not fetched again yet. */
  started: boolean;
}

/**
 * How far past its committed offset `doneBefore` takes a partition's done offsets in: every offset
 * up to the last one taken is tracked (about 100 bytes each), which a commit lagging far behind
 * the attempt records (commits refused for minutes while writes went through) would make large.
 */
export const MAX_DONE_SPAN = 100_000;
/** A gap up to this wide is looked up offset by offset; a wider one by a pass over the window. */
const PASS_SCAN_OFFSETS = 64;

/**
 * Commits for out-of-order work. Offsets of one partition are tracked in the order they were
 * fetched and complete in any order. The commit point is one past the last completed offset, with
 * the offsets below it still in flight listed as holes in the commit metadata (commit-holes.ts):
 * a record that takes long holds back no commit of the work done after it, and whoever handles the
 * partition after a crash handles the holes again. Nothing is ever skipped.
 */
export class PartitionOffsets {
  /** Fetched offsets in fetch order, with their completion state. */
  private readonly window: Entry[] = [];
  private head = 0;
  private readonly byOffset = new Map<number, Entry>();
  /** One past the highest offset below which everything has completed. */
  private next: number | undefined;
  private committed: string | undefined;
  private open = 0;
  /** Restored holes not fetched again yet (part of `open`, but nobody is working on them). */
  private unstarted = 0;
  private lastTracked: number | undefined;
  /** Below this, every offset not listed is done (0 once restored from a commit point). */
  private floor: number | undefined;
  /** The tracker that adopted this one (see `adopt`): completions are passed on to it. */
  private successor: PartitionOffsets | undefined;

  /**
   * The tracker of a partition taken over with holes in its committed metadata: the holes are
   * handled when fetched again (`has` is false for them), every other offset below `offset` is done.
   */
  static restored(point: CommitPoint): PartitionOffsets {
    const tracker = new PartitionOffsets();
    for (const hole of point.holes) tracker.push({ offset: hole, done: false, started: false });
    // Stands for the rest below the offset (unless that is a hole itself).
    if (!tracker.byOffset.has(point.offset - 1))
      tracker.push({ offset: point.offset - 1, done: true, started: true });
    tracker.lastTracked = point.offset - 1;
    tracker.floor = 0;
    tracker.committed = commitKey(tracker.pendingPoint());
    return tracker;
  }

  track(offset: number): void {
    const restored = this.byOffset.get(offset);
    if (restored && !restored.started) {
      restored.started = true;
      this.unstarted--;
      return;
    }
    if (this.has(offset))
      throw new Error(`offset ${offset} tracked out of order (after ${this.lastTracked})`);
    this.lastTracked = offset;
    this.floor ??= offset;
    this.push({ offset, done: false, started: true });
  }

  /**
   * Takes in what `previous`, this process's earlier tracker of the same partition, knows: an
   * offset it finished is done here too, and one it is still working on is not handed out again
   * but completes here when it completes there (its run holds the old tracker). Whoever had the
   * partition in between, this takes in only this process's own work, so nothing is skipped. Call
   * right after `restored` (or the constructor), before anything is tracked.
   */
  adopt(previous: PartitionOffsets): void {
    previous.successor = this;
    for (const entry of [...this.window]) {
      if (entry.started) continue;
      const state = previous.stateOf(entry.offset);
      if (state === 'unknown') continue;
      entry.started = true;
      this.unstarted--;
      if (state === 'done') this.complete(entry.offset);
    }
    const from = (this.lastTracked ?? -1) + 1;
    if (previous.lastTracked === undefined || previous.lastTracked < from) return;
    if (previous.floor === undefined || previous.floor > from) return; // it never saw [from, floor)
    for (let i = previous.head; i < previous.window.length; i++) {
      const { offset, done, started } = previous.window[i]!;
      if (offset >= from) this.push({ offset, done, started });
    }
    this.lastTracked = previous.lastTracked;
    this.floor ??= from;
  }

  /**
   * Takes back an offset handed out whose work never started (see WorkNotHeldError): it is open
   * and unstarted again, like a restored hole, so it is fetched and handed out again (a seek to
   * `firstUnstarted`) or, when the partition moves, listed as a hole for the next owner.
   */
  unstart(offset: number): void {
    this.successor?.unstart(offset);
    const entry = this.byOffset.get(offset);
    if (!entry || entry.done || !entry.started) return;
    entry.started = false;
    this.unstarted++;
  }

  /** The tracker that now stands for this one: its successor's, if it was adopted, else itself. */
  latest(): PartitionOffsets {
    return this.successor?.latest() ?? this;
  }

  /**
   * Takes in offsets found done by a previous owner that did not commit them (its delivered
   * attempt records, see DeliveredLookup): a restored hole among them is done; past the committed
   * offset each is done and every offset between them not listed is a hole, fetched and handled
   * as usual (nothing unlisted is skipped). Offsets more than MAX_DONE_SPAN past the committed one
   * are left out (handled again) rather than tracked with every offset between. Call right after
   * `restored`, before anything is tracked.
   */
  doneBefore(offsets: Iterable<number>): number {
    let taken = 0;
    const limit = (this.lastTracked ?? -1) + 1 + MAX_DONE_SPAN;
    for (const offset of [...new Set(offsets)].sort((a, b) => a - b)) {
      if (offset >= limit) break;
      const entry = this.byOffset.get(offset);
      if (entry) {
        if (entry.done) continue;
        if (!entry.started) {
          entry.started = true;
          this.unstarted--;
        }
        this.complete(offset);
        taken++;
        continue;
      }
      const from = (this.lastTracked ?? -1) + 1;
      if (offset < from) continue; // below the committed offset and not a hole: done already
      for (let gap = from; gap < offset; gap++) this.push({ offset: gap, done: false, started: false });
      this.push({ offset, done: true, started: true });
      this.lastTracked = offset;
      taken++;
    }
    return taken;
  }

  /**
   * Marks done the offsets in [from, to) listed but not handed out (restored holes, `doneBefore`'s
   * gaps) that a fetch passed without handing them out: a fetch hands out every record from where it
   * started, so those are transaction markers or aborted records (kafkajs filters them), nothing to
   * handle. `doneBefore` lists the offsets between two done ones without knowing which are records;
   * left listed, a marker among them stayed a hole for good, and the partition was never released.
   * Returns true when this changed what is to be committed. No work while nothing is unstarted.
   */
  passUnfetched(from: number, to: number): boolean {
    if (this.unstarted === 0 || from >= to) return false;
    const passed: number[] = [];
    if (to - from <= PASS_SCAN_OFFSETS) {
      for (let offset = from; offset < to; offset++)
        if (this.byOffset.get(offset)?.started === false) passed.push(offset);
    } else {
      for (let i = this.head; i < this.window.length; i++) {
        const { offset, started } = this.window[i]!;
        if (!started && offset >= from && offset < to) passed.push(offset);
      }
    }
    let changed = false;
    for (const offset of passed) {
      this.byOffset.get(offset)!.started = true;
      this.unstarted--;
      changed = this.complete(offset) || changed;
    }
    return changed;
  }

  /** The lowest offset listed but not handed out yet (a restored hole), if any. */
  firstUnstarted(): number | undefined {
    for (let i = this.head; i < this.window.length; i++)
      if (!this.window[i]!.started) return this.window[i]!.offset;
    return undefined;
  }

  /**
   * Where fetching must go on from: the first offset listed but not handed out, else the one after
   * the last handed out (undefined before anything was). Not the committed offset: another member
   * may have committed past offsets this one never saw (a late commit of the partition's previous
   * owner, with holes of its own), and fetching from there would skip them here.
   */
  resumeAt(): number | undefined {
    return this.firstUnstarted() ?? (this.lastTracked === undefined ? undefined : this.lastTracked + 1);
  }

  private stateOf(offset: number): 'done' | 'running' | 'unknown' {
    if (this.lastTracked === undefined || offset > this.lastTracked) return 'unknown';
    const entry = this.byOffset.get(offset);
    if (entry) return entry.done ? 'done' : entry.started ? 'running' : 'unknown';
    return this.floor !== undefined && offset >= this.floor ? 'done' : 'unknown';
  }

  /**
   * True when the offset was already handed out: offsets are tracked in increasing order, so
   * anything at or below the last tracked one is in flight or done (a re-fetch after a rebalance),
   * except a restored hole not yet handled.
   */
  has(offset: number): boolean {
    if (this.lastTracked === undefined || offset > this.lastTracked) return false;
    return this.byOffset.get(offset)?.started !== false;
  }

  /** Marks an offset done; returns true when this changed what is to be committed. */
  complete(offset: number): boolean {
    const entry = this.byOffset.get(offset);
    if (!entry || entry.done) return false;
    entry.done = true;
    this.open--;
    this.successor?.complete(offset);
    while (this.head < this.window.length && this.window[this.head]!.done) {
      const done = this.window[this.head++]!;
      this.byOffset.delete(done.offset);
      this.next = done.offset + 1;
    }
    if (this.head > 1024 && this.head * 2 > this.window.length) {
      this.window.splice(0, this.head);
      this.head = 0;
    }
    return true;
  }

  /** The offset and metadata to commit, when they differ from what was last committed. */
  pendingCommit(): PartitionCommit | undefined {
    const point = this.pendingPoint();
    if (!point) return undefined;
    let metadata = encodeHoles(point);
    let offset = point.offset;
    if (metadata !== null && metadata.length > MAX_METADATA_CHARS) {
      if (this.next === undefined) return undefined;
      [offset, metadata] = [this.next, null]; // cannot happen with MAX_HOLES; never skip a hole
    }
    return commitKey({ offset, metadata }) === this.committed ? undefined : { offset, metadata };
  }

  /**
   * The commit that gives the partition up (RELEASED_METADATA: the next owner may start at once),
   * when nothing of it is open (in flight or a hole) and it was not committed so already.
   */
  releaseCommit(): PartitionCommit | undefined {
    const point = this.open === 0 ? this.pendingPoint() : undefined;
    if (!point) return undefined;
    const commit = { offset: point.offset, metadata: RELEASED_METADATA };
    return commitKey(commit) === this.committed ? undefined : commit;
  }

  markCommitted(commit: PartitionCommit): void {
    this.committed = commitKey(commit);
  }

  /** Offsets fetched (or restored holes) not yet completed. */
  get inFlight(): number {
    return this.open;
  }

  /** Offsets being handled now: fetched and not completed (restored holes not fetched again excluded). */
  get running(): number {
    return this.open - this.unstarted;
  }

  private pendingPoint(): CommitPoint | undefined {
    const point = commitPointOf(this.window.slice(this.head));
    if (point) return point;
    return this.next === undefined ? undefined : { offset: this.next, holes: [] };
  }

  private push(entry: Entry): void {
    this.window.push(entry);
    this.byOffset.set(entry.offset, entry);
    if (!entry.done) this.open++;
    if (!entry.started) this.unstarted++;
  }
}
