/**
 * A lane's queue with per-key order (lane.ts): items in arrival order, each key's items in a FIFO,
 * and the keys whose head may start (their key is not busy), to find the oldest such head.
 *
 * `oldestReady()` is the item the Dispatcher used to find by walking the queue from its start and
 * skipping the items whose key was busy: the oldest item whose key is free. Here no item that
 * cannot start is looked at. The ready keys are in two places, each ordered by their head's
 * arrival, and the oldest ready item is the older of their two fronts:
 * - a list, for a key whose head is younger than every head in it: a new key's first item (the
 *   newest of all), or a freed key's next item that arrived after those; O(1) in and out;
 * - a binary heap, for a key freed with an older head: a user whose run ended with a backlog. A
 *   FIFO of keys in the order they became ready would be O(1) too, but not the scan's order: that
 *   user's next item arrived before the heads of keys that became ready while it ran, and the scan
 *   started it first (a heavy user kept its one run going in a busy lane). O(log H), H the keys in
 *   the heap: the users with a backlog whose next item waits for a slot or a token.
 * So every operation is O(1), but a pick or a defer of a key in the heap, or its entry, O(log H).
 */

/** The links an item of a KeyedQueue carries (in the item: no allocation per item). */
export interface KeyedNode<T> {
  readonly key: string;
  /** Arrival order in its queue. */
  seq: number;
  prev: T | undefined;
  next: T | undefined;
  /** The next item of the same key. */
  nextOfKey: T | undefined;
}

/** KeyState.at when a key is not ready (busy, or being taken), or in the list. */
const NOT_READY = -1;
const LISTED = -2;

/** One key's items, and where it is while ready: its index in the heap, or LISTED. */
interface KeyState<T> {
  head: T;
  tail: T;
  at: number;
  prevReady: KeyState<T> | undefined;
  nextReady: KeyState<T> | undefined;
}

export class KeyedQueue<T extends KeyedNode<T>> {
  private first: T | undefined;
  private last: T | undefined;
  private count = 0;
  private nextSeq = 0;
  private readonly keys = new Map<string, KeyState<T>>();
  /** Ready keys whose head arrived after every head before them in the list. */
  private listFirst: KeyState<T> | undefined;
  private listLast: KeyState<T> | undefined;
  /** The other ready keys, ordered by their head's `seq`. */
  private readonly heap: KeyState<T>[] = [];

  /** `busy`: the keys that have a run (lane.activeKeys); told of changes by keyBusy and keyFree. */
  constructor(private readonly busy: { has(key: string): boolean }) {}

  get size(): number {
    return this.count;
  }

  /** Whether `key` has items waiting. */
  has(key: string): boolean {
    return this.keys.has(key);
  }

  /** The oldest item (in arrival order), whatever its key. */
  oldest(): T | undefined {
    return this.first;
  }

  /** The oldest item whose key is not busy. */
  oldestReady(): T | undefined {
    const listed = this.listFirst?.head;
    const heaped = this.heap[0]?.head;
    if (!listed || !heaped) return listed ?? heaped;
    return listed.seq < heaped.seq ? listed : heaped;
  }

  push(item: T): void {
    item.seq = this.nextSeq++;
    item.prev = this.last;
    item.next = undefined;
    item.nextOfKey = undefined;
    if (this.last) this.last.next = item;
    else this.first = item;
    this.last = item;
    this.count++;
    const state = this.keys.get(item.key);
    if (state) {
      state.tail.nextOfKey = item;
      state.tail = item;
      return;
    }
    const fresh: KeyState<T> = {
      head: item,
      tail: item,
      at: NOT_READY,
      prevReady: undefined,
      nextReady: undefined,
    };
    this.keys.set(item.key, fresh);
    if (!this.busy.has(item.key)) this.makeReady(fresh);
  }

  /** Takes out a key's head to start it: its key is not ready any more (keyFree makes it so). */
  take(item: T): void {
    const state = this.headState(item);
    this.notReady(state);
    this.shift(item, state);
  }

  /** Takes out a key's head that will not start (deferred): its next item keeps the key's turn. */
  remove(item: T): void {
    const state = this.headState(item);
    const ready = state.at !== NOT_READY;
    this.notReady(state);
    if (this.shift(item, state) && ready) this.makeReady(state);
  }

  /** `key` has a run now: its items wait. */
  keyBusy(key: string): void {
    if (this.count === 0) return; // no key to look up (a lane that keeps up; its retries, mostly)
    const state = this.keys.get(key);
    if (state) this.notReady(state);
  }

  /** `key` may have no run now (checked with `busy`): its head may start. */
  keyFree(key: string): void {
    if (this.count === 0) return;
    const state = this.keys.get(key);
    if (state && state.at === NOT_READY && !this.busy.has(key)) this.makeReady(state);
  }

  private headState(item: T): KeyState<T> {
    const state = this.keys.get(item.key);
    if (state?.head !== item) throw new Error(`KeyedQueue: not the head of key ${item.key}`);
    return state;
  }

  /** Unlinks `item`, the head of its key; whether the key has items left. */
  private shift(item: T, state: KeyState<T>): boolean {
    if (item.prev) item.prev.next = item.next;
    else this.first = item.next;
    if (item.next) item.next.prev = item.prev;
    else this.last = item.prev;
    this.count--;
    const next = item.nextOfKey;
    item.prev = item.next = item.nextOfKey = undefined;
    if (next) state.head = next;
    else this.keys.delete(item.key);
    return next !== undefined;
  }

  private makeReady(state: KeyState<T>): void {
    const last = this.listLast;
    if (last && last.head.seq > state.head.seq) return this.heapPush(state);
    state.at = LISTED;
    state.prevReady = last;
    state.nextReady = undefined;
    if (last) last.nextReady = state;
    else this.listFirst = state;
    this.listLast = state;
  }

  private notReady(state: KeyState<T>): void {
    if (state.at >= 0) return this.heapRemove(state.at);
    if (state.at !== LISTED) return;
    const { prevReady, nextReady } = state;
    if (prevReady) prevReady.nextReady = nextReady;
    else this.listFirst = nextReady;
    if (nextReady) nextReady.prevReady = prevReady;
    else this.listLast = prevReady;
    state.prevReady = state.nextReady = undefined;
    state.at = NOT_READY;
  }

  private heapPush(state: KeyState<T>): void {
    this.place(state, this.heap.length);
    this.siftUp(state.at);
  }

  private heapRemove(at: number): void {
    const heap = this.heap;
    const removed = heap[at]!;
    removed.at = NOT_READY;
    const last = heap.pop()!;
    if (last === removed) return;
    this.place(last, at);
    this.siftDown(at);
    this.siftUp(last.at);
  }

  private siftUp(at: number): void {
    const state = this.heap[at]!;
    while (at > 0) {
      const parentAt = (at - 1) >> 1;
      const parent = this.heap[parentAt]!;
      if (parent.head.seq < state.head.seq) break;
      this.place(parent, at);
      at = parentAt;
    }
    this.place(state, at);
  }

  private siftDown(at: number): void {
    const heap = this.heap;
    const state = heap[at]!;
    for (;;) {
      let childAt = 2 * at + 1;
      if (childAt >= heap.length) break;
      if (childAt + 1 < heap.length && heap[childAt + 1]!.head.seq < heap[childAt]!.head.seq) childAt++;
      const child = heap[childAt]!;
      if (state.head.seq < child.head.seq) break;
      this.place(child, at);
      at = childAt;
    }
    this.place(state, at);
  }

  private place(state: KeyState<T>, at: number): void {
    this.heap[at] = state;
    state.at = at;
  }
}
