import fc from 'fast-check';
import { DedupeWindow } from '../../../src/routing/dedupe';

/** The window as it was before it kept digests: a Map of the ids in claim order. The model. */
class MapWindow {
  private readonly seen = new Map<string, number>();
  constructor(private readonly options: { windowMs: number; maxEntries: number; clock: { now(): number } }) {}
  has(key: string): boolean {
    this.evict();
    return this.seen.has(key);
  }
  claim(key: string): boolean {
    if (this.has(key)) return false;
    this.seen.set(key, this.options.clock.now());
    this.evict();
    return true;
  }
  release(key: string): void {
    this.seen.delete(key);
  }
  get size(): number {
    return this.seen.size;
  }
  private evict(): void {
    const oldestAllowed = this.options.clock.now() - this.options.windowMs;
    for (const [key, at] of this.seen) {
      if (at >= oldestAllowed && this.seen.size <= this.options.maxEntries) break;
      this.seen.delete(key);
    }
  }
}

describe('DedupeWindow', () => {
  it('remembers ids for the window and forgets them after', () => {
    let now = 1_000;
    const w = new DedupeWindow({ windowMs: 100, maxEntries: 10, clock: { now: () => now } });
    w.claim('a');
    now += 100;
    expect(w.has('a')).toBe(true);
    now += 1;
    expect(w.has('a')).toBe(false);
    expect(w.size).toBe(0);
  });

  it('claims an id once, and lets a released claim be made again', () => {
    const w = new DedupeWindow({ windowMs: 1_000, maxEntries: 10, clock: { now: () => 0 } });
    expect(w.claim('m')).toBe(true);
    expect(w.claim('m')).toBe(false);
    w.release('m');
    expect(w.claim('m')).toBe(true);
  });

  it('forgets the oldest ids beyond maxEntries', () => {
    const w = new DedupeWindow({ windowMs: 1_000_000, maxEntries: 3, clock: { now: () => 0 } });
    for (const id of ['a', 'b', 'c', 'd']) w.claim(id);
    expect(['a', 'b', 'c', 'd'].map((id) => w.has(id))).toEqual([false, true, true, true]);
  });

  it.each([
    { maxEntries: 0, claims: 10, kept: 0 },
    { maxEntries: 1, claims: 10, kept: 1 },
    { maxEntries: 5_000, claims: 3_000, kept: 3_000 },
    { maxEntries: 5_000, claims: 12_000, kept: 5_000 },
  ])('keeps the newest min($claims, $maxEntries) of $claims claims', ({ maxEntries, claims, kept }) => {
    const w = new DedupeWindow({ windowMs: 1_000_000, maxEntries, clock: { now: () => 0 } });
    for (let i = 0; i < claims; i++) expect(w.claim(`source:id-${i}`)).toBe(true);
    expect(w.size).toBe(kept);
    const remembered = Array.from({ length: claims }, (_, i) => w.has(`source:id-${i}`));
    expect(remembered.filter(Boolean)).toHaveLength(kept);
    expect(remembered.slice(claims - kept).every(Boolean)).toBe(true);
  });

  it('takes the memory of its whole bound when made, and compacts in place when full', () => {
    const maxEntries = 200_000;
    const before = process.memoryUsage().arrayBuffers;
    const w = new DedupeWindow({ windowMs: 1_000_000, maxEntries, clock: { now: () => 0 } });
    const made = process.memoryUsage().arrayBuffers - before;
    expect(made).toBeGreaterThanOrEqual(24 * maxEntries); // digest 8 + time 8 + index ≥ 8, per id
    expect(made).toBeLessThanOrEqual(32 * maxEntries);
    for (let i = 0; i < maxEntries + 1_000; i++) w.claim(`source:id-${i}`);
    w.release(`source:id-${maxEntries}`);
    expect(w.claim('source:after-release')).toBe(true); // the ring is full: compacted in place
    expect(w.size).toBe(maxEntries);
  });

  it('answers as a Map of the ids would, for any sequence of claims, releases and time', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('claim' as const), key: fc.integer({ min: 0, max: 30 }) }),
      fc.record({ kind: fc.constant('has' as const), key: fc.integer({ min: 0, max: 30 }) }),
      fc.record({ kind: fc.constant('release' as const), key: fc.integer({ min: 0, max: 30 }) }),
      fc.record({ kind: fc.constant('tick' as const), key: fc.integer({ min: 0, max: 40 }) }),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 12 }),
        fc.integer({ min: 1, max: 100 }),
        fc.array(op, { maxLength: 300 }),
        (maxEntries, windowMs, ops) => {
          let now = 0;
          const clock = { now: () => now };
          const model = new MapWindow({ windowMs, maxEntries, clock });
          const w = new DedupeWindow({ windowMs, maxEntries, clock });
          for (const { kind, key } of ops) {
            const id = `src:${key}`;
            if (kind === 'tick') now += key;
            else if (kind === 'release') {
              model.release(id);
              w.release(id);
            } else expect(w[kind](id)).toBe(model[kind](id));
            expect(w.size).toBe(model.size);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
