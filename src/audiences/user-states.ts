import type { UserState } from './user-state';

/**
 * The states of one partition's users, by user key (`sourceId:userId`). A state handed out by
 * `get` or `entries` may be changed in place; `set` must follow every change that is to be kept
 * (a change not `set` may be lost, as it is not written to Kafka either). A `Map` is one (all in
 * memory: unit tests, benches); CachedUserStates keeps them on disk with a bounded cache.
 */
export interface UserStates {
  get(key: string): UserState | undefined;
  set(key: string, state: UserState): unknown;
  delete(key: string): unknown;
  readonly size: number;
  /** Every user; those visited may be changed (and `set`) meanwhile, no others. */
  entries(): Iterable<[string, UserState]>;
}

/** Where CachedUserStates keeps the states it does not hold: an embedded store on disk. */
export interface UserDisk {
  get(key: string): UserState | undefined;
  has(key: string): boolean;
  /** Writes a batch at once (null: remove). */
  write(changes: Map<string, UserState | null>): void;
  /** Up to `limit` users after the key `after` (from the first when undefined), in a fixed order. */
  page(after: string | undefined, limit: number): Array<[string, UserState]>;
  close(): void;
}

export interface CachedUserStatesOptions {
  disk: UserDisk;
  /** Most users whose state is held in memory besides those changed and not yet written. */
  cacheUsers: number;
  /** Changed states are written to disk in batches of this many (held in memory till then). */
  writeBatchUsers?: number;
  /** Users read from disk at a time by `entries`. */
  pageUsers?: number;
}

/**
 * A partition's user states on disk with a least-recently-used cache of at most `cacheUsers`
 * decoded states plus at most `writeBatchUsers` changed ones waiting to be written: memory is
 * bounded by configuration, not by users. The disk holds what was set, committed to Kafka or not:
 * it is a cache of the state topic, thrown away with the partition's unit whenever a step fails
 * and rebuilt from the topic when the partition is opened again (unit.ts).
 */
export class CachedUserStates implements UserStates {
  /** States written to disk and kept decoded, least recently used first. */
  private readonly cache = new Map<string, UserState>();
  /** Changed since last written: the state, or null for a removal. */
  private readonly dirty = new Map<string, UserState | null>();
  private count = 0;
  private readonly disk: UserDisk;
  private readonly cacheUsers: number;
  private readonly writeBatchUsers: number;
  private readonly pageUsers: number;

  constructor(options: CachedUserStatesOptions) {
    this.disk = options.disk;
    this.cacheUsers = Math.max(0, options.cacheUsers);
    this.writeBatchUsers = Math.max(1, options.writeBatchUsers ?? 1_000);
    this.pageUsers = Math.max(1, options.pageUsers ?? 1_000);
  }

  get size(): number {
    return this.count;
  }

  get(key: string): UserState | undefined {
    const pending = this.dirty.get(key);
    if (pending !== undefined) return pending ?? undefined;
    const cached = this.cache.get(key);
    if (cached) {
      this.cache.delete(key);
      this.cache.set(key, cached);
      return cached;
    }
    const state = this.disk.get(key);
    if (state) this.keep(key, state);
    return state;
  }

  set(key: string, state: UserState): void {
    if (!this.exists(key)) this.count++;
    this.cache.delete(key);
    this.dirty.set(key, state);
    if (this.dirty.size >= this.writeBatchUsers) this.write();
  }

  delete(key: string): void {
    if (!this.exists(key)) return;
    this.count--;
    this.cache.delete(key);
    this.dirty.set(key, null);
    if (this.dirty.size >= this.writeBatchUsers) this.write();
  }

  /** Reads the disk a page at a time; a state held in memory is handed out rather than its copy. */
  *entries(): Generator<[string, UserState]> {
    this.write();
    let after: string | undefined;
    for (;;) {
      const page = this.disk.page(after, this.pageUsers);
      for (const [key, state] of page) {
        const held = this.dirty.get(key);
        if (held !== null) yield [key, held ?? this.cache.get(key) ?? state];
      }
      if (page.length < this.pageUsers) return;
      after = page[page.length - 1]![0];
      // What was set meanwhile (users already visited) goes to disk before the next page is read.
      this.write();
    }
  }

  /** States held decoded in memory (tests, diagnostics). */
  get heldUsers(): number {
    return this.cache.size + this.dirty.size;
  }

  close(): void {
    this.cache.clear();
    this.dirty.clear();
    this.disk.close();
  }

  private exists(key: string): boolean {
    const pending = this.dirty.get(key);
    if (pending !== undefined) return pending !== null;
    return this.cache.has(key) || this.disk.has(key);
  }

  /** Writes the changed states out; they stay in memory as the most recently used. */
  private write(): void {
    if (this.dirty.size === 0) return;
    this.disk.write(this.dirty);
    for (const [key, state] of this.dirty) if (state) this.keep(key, state);
    this.dirty.clear();
  }

  /** Holds a written state, evicting the least recently used beyond the bound. */
  private keep(key: string, state: UserState): void {
    this.cache.delete(key);
    this.cache.set(key, state);
    while (this.cache.size > this.cacheUsers) this.cache.delete(this.cache.keys().next().value as string);
  }
}
