import fc from 'fast-check';
import { KeyedQueue, type KeyedNode } from '../../../src/delivery/keyed-queue';

interface Item extends KeyedNode<Item> {
  id: number;
}

const item = (id: number, key: string): Item => ({
  id,
  key,
  seq: 0,
  prev: undefined,
  next: undefined,
  nextOfKey: undefined,
});

/**
 * The model: a lane's queue as the Dispatcher kept it before KeyedQueue, an array walked from its
 * start, skipping the items whose key is busy, and spliced.
 */
class ScanQueue {
  readonly items: Item[] = [];
  constructor(private readonly busy: Set<string>) {}
  oldestReady(): Item | undefined {
    return this.items.find((i) => !this.busy.has(i.key));
  }
  removeItem(target: Item): void {
    this.items.splice(this.items.indexOf(target), 1);
  }
}

/** Keys as real traffic has them: two users with most of the tasks, and a long tail. */
const skewedKey = fc.oneof(
  { arbitrary: fc.constantFrom('heavy0', 'heavy1'), weight: 6 },
  { arbitrary: fc.integer({ min: 0, max: 30 }).map((i) => `user${i}`), weight: 4 },
);

type Op =
  | { op: 'push'; key: string }
  | { op: 'pump' } // start the oldest ready items while there is room
  | { op: 'complete'; pick: number } // a key's run ends
  | { op: 'notHeld' } // the oldest ready item is taken but does not start (its partition is gone)
  | { op: 'deferOldest' }; // a slow lane defers its oldest item

const ops = fc.array(
  fc.oneof(
    { arbitrary: skewedKey.map((key): Op => ({ op: 'push', key })), weight: 8 },
    { arbitrary: fc.constant<Op>({ op: 'pump' }), weight: 4 },
    { arbitrary: fc.nat().map((pick): Op => ({ op: 'complete', pick })), weight: 4 },
    { arbitrary: fc.constant<Op>({ op: 'notHeld' }), weight: 1 },
    { arbitrary: fc.constant<Op>({ op: 'deferOldest' }), weight: 1 },
  ),
  { maxLength: 150, size: 'max' }, // long scripts: the queue must grow past the limit
);

describe('KeyedQueue', () => {
  it('picks the oldest item whose key is free, as the scan of the whole queue did', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), ops, (limit, script) => {
        const busy = new Set<string>();
        const queue = new KeyedQueue<Item>(busy);
        const model = new ScanQueue(busy);
        const byId = new Map<number, Item>();
        const started: number[] = [];
        const modelStarted: number[] = [];
        const take = (): { got?: Item; expected?: Item } => {
          const got = queue.oldestReady();
          const expected = model.oldestReady();
          expect(got?.id).toBe(expected?.id);
          if (got) queue.take(got);
          if (expected) model.removeItem(expected);
          return { got, expected };
        };
        let nextId = 0;
        for (const step of script) {
          if (step.op === 'push') {
            const id = nextId++;
            const fresh = item(id, step.key);
            byId.set(id, fresh);
            queue.push(fresh);
            model.items.push({ ...fresh });
          } else if (step.op === 'pump') {
            while (busy.size < limit) {
              const { got, expected } = take();
              if (!got || !expected) break;
              started.push(got.id);
              modelStarted.push(expected.id);
              busy.add(got.key);
              queue.keyBusy(got.key);
            }
          } else if (step.op === 'complete') {
            if (busy.size === 0) continue;
            const key = [...busy][step.pick % busy.size]!;
            busy.delete(key);
            queue.keyFree(key);
          } else if (step.op === 'notHeld') {
            const { got } = take();
            if (got) queue.keyFree(got.key);
          } else {
            const oldest = queue.oldest();
            expect(oldest?.id).toBe(model.items[0]?.id);
            if (oldest) queue.remove(oldest);
            model.items.shift();
          }
          expect(queue.size).toBe(model.items.length);
          expect(queue.oldest()?.id).toBe(model.items[0]?.id);
        }
        expect(started).toEqual(modelStarted);
      }),
      { numRuns: 300 },
    );
  });

  it("keeps a key's items in order behind its run, and lets other keys pass", () => {
    const busy = new Set<string>();
    const queue = new KeyedQueue<Item>(busy);
    for (const [id, key] of [
      [0, 'a'],
      [1, 'a'],
      [2, 'b'],
      [3, 'a'],
    ] as const)
      queue.push(item(id, key));
    const start = () => {
      const next = queue.oldestReady()!;
      queue.take(next);
      busy.add(next.key);
      queue.keyBusy(next.key);
      return next.id;
    };
    expect(start()).toBe(0);
    expect(start()).toBe(2);
    expect(queue.oldestReady()).toBeUndefined(); // 1 and 3 wait for a's run
    busy.delete('a');
    queue.keyFree('a');
    expect(start()).toBe(1);
    expect(queue.size).toBe(1);
  });

  it('goes back to the oldest head when a key with a backlog is freed', () => {
    // a's next item (1) came before c's (3): when a's run ends, 1 goes before 3, as the scan did.
    const busy = new Set<string>(['a', 'b']);
    const queue = new KeyedQueue<Item>(busy);
    queue.push(item(1, 'a'));
    queue.push(item(3, 'c'));
    queue.push(item(5, 'd'));
    expect(queue.oldestReady()?.id).toBe(3);
    busy.delete('a');
    queue.keyFree('a');
    expect(queue.oldestReady()?.id).toBe(1);
  });

  it('still starts a task older than the head of the freed key first', () => {
    // b's next item (2) is older than d's (3), so it waits in the heap; c's (1) is older still.
    const busy = new Set<string>(['b']);
    const queue = new KeyedQueue<Item>(busy);
    queue.push(item(1, 'c'));
    queue.push(item(2, 'b'));
    queue.push(item(3, 'd'));
    busy.delete('b');
    queue.keyFree('b');
    const order: number[] = [];
    for (let next = queue.oldestReady(); next; next = queue.oldestReady()) {
      queue.take(next);
      order.push(next.id);
    }
    expect(order).toEqual([1, 2, 3]);
  });

  it('refuses to take an item that is not the head of its key', () => {
    const queue = new KeyedQueue<Item>(new Set());
    const first = item(0, 'a');
    const second = item(1, 'a');
    queue.push(first);
    queue.push(second);
    expect(() => queue.take(second)).toThrow('not the head of key a');
  });
});
