/**
 * A lane's queue with per-key order (lane.ts): items in arrival order, each key's items in a FIFO,
 * and a heap of the keys whose head may start (their key is not busy), oldest head first.
 *
 * `oldestReady()` is the item the Dispatcher used to find by walking the queue from its start and
 * skipping the items whose key was busy: the oldest item whose key is free. Here no item that
 * cannot start is looked at. Costs, with R the keys whose head could start but waits (for a slot
 * or a token; none in a lane that keeps up):
 * - push: O(1) (a key that enters the heap has the newest head, so it stays at the bottom);
 * - oldestReady, oldest: O(1);
 * - take (start the oldest ready item): O(log R);
 * - keyFree (a key's run ended, its next item waits): O(1) without a backlog, else O(log R);
 * - remove (the oldest item, deferred): O(1), O(log R) when its key has more waiting.
 * The heap, not a FIFO of keys in the order they became ready, keeps the order exact: a key whose
 * run ends with a backlog has an older head than keys that arrived while it ran, and goes first.
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

/** One key's items, and its place in the heap (-1 when out of it: busy, or taken). */
interface KeyState<T> {
  head: T;
  tail: T;
  at: number;
}

export class KeyedQueue<T extends KeyedNode<T>> {
  private first: T | undefined;
  private last: T | undefined;
  private count = 0;
  private nextSeq = 0;
  private readonly keys = new Map<string, KeyState<T>>();
  /** Keys whose head may start, ordered by their head's `seq`. */
  private readonly ready: KeyState<T>[] = [];

  /** `busy`: the keys that have a run (lane.activeKeys); told of changes by keyBusy and keyFree. */
  constructor(private readonly busy: { has(key: string): boolean }) {}

  get size(): number {
    return this.count;
  }

  /** The oldest item (in arrival order), whatever its key. */
  oldest(): T | undefined {
    return this.first;
  }

  /** The oldest item whose key is not busy. */
  oldestReady(): T | undefined {
    return this.ready[0]?.head;
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
    const fresh: KeyState<T> = { head: item, tail: item, at: -1 };
    this.keys.set(item.key, fresh);
    if (!this.busy.has(item.key)) this.heapPush(fresh);
  }

  /** Takes out a key's head to start it: its key leaves the heap (keyFree brings it back). */
  take(item: T): void {
    const state = this.shift(item);
    if (state && state.at >= 0) this.heapRemove(state.at);
  }

  /** Takes out a key's head that will not start (deferred): its key keeps its turn. */
  remove(item: T): void {
    const state = this.shift(item);
    if (state && state.at >= 0) this.siftDown(state.at); // its new head is younger
  }

  /** `key` has a run now: its items wait. */
  keyBusy(key: string): void {
    const state = this.keys.get(key);
    if (state && state.at >= 0) this.heapRemove(state.at);
  }

  /** `key` may have no run now (checked with `busy`): its head may start. */
  keyFree(key: string): void {
    const state = this.keys.get(key);
    if (state && state.at < 0 && !this.busy.has(key)) this.heapPush(state);
  }

  /** Unlinks `item`, the head of its key; returns its key's state while items remain. */
  private shift(item: T): KeyState<T> | undefined {
    const state = this.keys.get(item.key);
    if (state?.head !== item) throw new Error(`KeyedQueue: not the head of key ${item.key}`);
    if (item.prev) item.prev.next = item.next;
    else this.first = item.next;
    if (item.next) item.next.prev = item.prev;
    else this.last = item.prev;
    this.count--;
    const next = item.nextOfKey;
    item.prev = item.next = item.nextOfKey = undefined;
    if (next) {
      state.head = next;
      return state;
    }
    if (state.at >= 0) this.heapRemove(state.at);
    this.keys.delete(item.key);
    return undefined;
  }

  private heapPush(state: KeyState<T>): void {
    this.place(state, this.ready.length);
    this.siftUp(state.at);
  }

  private heapRemove(at: number): void {
    const heap = this.ready;
    const removed = heap[at]!;
    removed.at = -1;
    const last = heap.pop()!;
    if (last === removed) return;
    this.place(last, at);
    this.siftDown(at);
    this.siftUp(last.at);
  }

  private siftUp(at: number): void {
    const heap = this.ready;
    const state = heap[at]!;
    while (at > 0) {
      const parentAt = (at - 1) >> 1;
      const parent = heap[parentAt]!;
      if (parent.head.seq < state.head.seq) break;
      this.place(parent, at);
      at = parentAt;
    }
    this.place(state, at);
  }

  private siftDown(at: number): void {
    const heap = this.ready;
    const state = heap[at]!;
    const n = heap.length;
    for (;;) {
      let childAt = 2 * at + 1;
      if (childAt >= n) break;
      if (childAt + 1 < n && heap[childAt + 1]!.head.seq < heap[childAt]!.head.seq) childAt++;
      const child = heap[childAt]!;
      if (state.head.seq < child.head.seq) break;
      this.place(child, at);
      at = childAt;
    }
    this.place(state, at);
  }

  private place(state: KeyState<T>, at: number): void {
    this.ready[at] = state;
    state.at = at;
  }
}
