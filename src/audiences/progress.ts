import { Outbox } from './partition';

/** The next offset to read of one topic (of the partition the progress is about). */
export interface TopicOffset {
  topic: string;
  offset: string;
}

/**
 * A partition's progress through its inputs (hookline.events and hookline.audience-commands):
 * what is applied to the users' state in memory, and what of it is committed. Between two
 * commits the processor applies batch after batch into one Outbox (`pending`); the commit
 * evaluates the users they touched once and writes the state, the identifies and `toCommit()` in
 * one transaction. A crash before it loses nothing (the state on Kafka and the committed offsets
 * are still those of the previous commit: the inputs are read and applied again), and a commit
 * never holds a change without the offsets of the inputs that made it. Pure bookkeeping.
 */
export class InputProgress {
  /** Per topic, the next offset to apply: records below it are in the state (committed or not). */
  private readonly next = new Map<string, bigint>();
  /** Per topic, the offset committed with the state on Kafka. */
  private readonly committed = new Map<string, bigint>();
  /** Topics with records applied since the last commit. */
  private readonly moved = new Set<string>();
  private outbox = new Outbox();
  /** When the first record since the last commit was applied. */
  private sinceMs: number | undefined;
  /** When the first record since the last commit that changed something was applied. */
  private changedSinceMs: number | undefined;

  /** `committed`: the offsets committed with the state the partition was loaded from. */
  constructor(committed: TopicOffset[]) {
    for (const { topic, offset } of committed) {
      this.next.set(topic, BigInt(offset));
      this.committed.set(topic, BigInt(offset));
    }
  }

  /** What the records applied since the last commit change: written by the next commit. */
  get pending(): Outbox {
    return this.outbox;
  }

  /** Whether records were applied since the last commit. */
  get uncommitted(): boolean {
    return this.moved.size > 0;
  }

  /**
   * Whether the record at `offset` is already in the state: a batch fetched again (the consumer
   * started from offsets older than the state it was given, e.g. committed by the partition's
   * previous owner between the two reads) skips what it holds twice.
   */
  isApplied(topic: string, offset: string): boolean {
    const next = this.next.get(topic);
    return next !== undefined && BigInt(offset) < next;
  }

  /** The next offset of `topic` to apply, if known. */
  nextOf(topic: string): string | undefined {
    return this.next.get(topic)?.toString();
  }

  /**
   * Every record of `topic` before `nextOffset` is applied (into `pending`), at `nowMs`;
   * `changed`: they changed something (what `pending` holds is more than offsets).
   */
  applied(topic: string, nextOffset: string, nowMs: number, changed = true): void {
    const next = BigInt(nextOffset);
    if (next <= (this.next.get(topic) ?? -1n)) return;
    this.next.set(topic, next);
    this.moved.add(topic);
    this.sinceMs ??= nowMs;
    if (changed) this.changedSinceMs ??= nowMs;
  }

  /**
   * Whether the next commit is due: `intervalMs` after the first record since the last commit
   * that changed something (what it changed waits at most that long), or, when none did, after
   * the first record (offsets alone are committed as often, no more).
   */
  due(nowMs: number, intervalMs: number): boolean {
    const since = this.changedSinceMs ?? this.sinceMs;
    return since !== undefined && nowMs - since >= intervalMs;
  }

  /** The offsets the next commit writes: the next to read of each topic applied since the last. */
  toCommit(): TopicOffset[] {
    return [...this.moved].map((topic) => ({ topic, offset: this.next.get(topic)!.toString() }));
  }

  /** The commit of `toCommit()` and `pending` succeeded: the next one starts empty. */
  committedNow(): void {
    for (const topic of this.moved) this.committed.set(topic, this.next.get(topic)!);
    this.moved.clear();
    this.outbox = new Outbox();
    this.sinceMs = undefined;
    this.changedSinceMs = undefined;
  }

  /**
   * Where the consumer must go back to when the state applied since the last commit is thrown
   * away (a failed commit): the committed offset of each topic applied since.
   */
  rewind(): TopicOffset[] {
    return [...this.moved]
      .filter((topic) => this.committed.has(topic))
      .map((topic) => ({ topic, offset: this.committed.get(topic)!.toString() }));
  }
}
