/**
 * The first `k` items of a stream in `order` (a comparator: negative when `a` comes first),
 * without holding the rest: a heap of at most `k` items whose root is the last one kept.
 * A listing scans every dead letter once and keeps only a page of them.
 */
export class TopK<T> {
  private readonly heap: T[] = [];

  constructor(
    private readonly k: number,
    private readonly order: (a: T, b: T) => number,
  ) {}

  /** Whether `k` items are kept (a new one must come before `last()` to be kept). */
  get full(): boolean {
    return this.heap.length >= this.k;
  }

  /** The last item kept, in order. */
  last(): T | undefined {
    return this.heap[0];
  }

  offer(item: T): void {
    if (this.k <= 0) return;
    if (this.heap.length < this.k) {
      this.heap.push(item);
      this.up(this.heap.length - 1);
    } else if (this.order(item, this.heap[0]!) < 0) {
      this.heap[0] = item;
      this.down(0);
    }
  }

  /** The kept items, in order. */
  sorted(): T[] {
    return [...this.heap].sort(this.order);
  }

  /** Whether `a` belongs nearer the root than `b` (it comes later in `order`). */
  private above(a: number, b: number): boolean {
    return this.order(this.heap[a]!, this.heap[b]!) > 0;
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.above(i, parent)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let top = i;
      if (left < this.heap.length && this.above(left, top)) top = left;
      if (right < this.heap.length && this.above(right, top)) top = right;
      if (top === i) return;
      this.swap(i, top);
      i = top;
    }
  }

  private swap(a: number, b: number): void {
    [this.heap[a], this.heap[b]] = [this.heap[b]!, this.heap[a]!];
  }
}
