import fc from 'fast-check';
import { AttemptRings, CHUNK_BYTES } from '../../../../src/operations/attempts/rings';

/** Records of 300 bytes, about an attempt record's size: 13 to a full chunk. */
const RECORD_BYTES = 300;
const record = (name: string) => Buffer.from(name.padEnd(RECORD_BYTES, '.'));
const names = (items: Buffer[]) => items.map((i) => i.toString().replace(/\.+$/, ''));

/** What `n` records of 300 bytes of one destination take, at least: their bytes. */
const atLeast = (n: number) => n * RECORD_BYTES;

describe('AttemptRings', () => {
  it('keeps the last perDestination records of each destination, oldest first', () => {
    const rings = new AttemptRings({ perDestination: 3, maxBytes: 1 << 20 });
    for (let n = 1; n <= 5; n++) rings.add('a', record(`a${n}`));
    rings.add('b', record('b1'));
    expect(names(rings.get('a'))).toEqual(['a3', 'a4', 'a5']);
    expect(names(rings.get('b'))).toEqual(['b1']);
    expect(rings.get('none')).toEqual([]);
    expect([rings.count, rings.destinationCount]).toEqual([4, 2]);
  });

  it('keeps copies: the buffer added may be reused, the records read may be changed', () => {
    const rings = new AttemptRings({ perDestination: 10, maxBytes: 1 << 20 });
    const reused = Buffer.from('first');
    rings.add('a', reused);
    reused.write('xxxxx');
    rings.add('a', reused);
    rings.get('a')[0]!.write('yyyyy');
    expect(rings.get('a').map(String)).toEqual(['first', 'xxxxx']);
  });

  it('keeps a record larger than a chunk, among small ones', () => {
    const rings = new AttemptRings({ perDestination: 10, maxBytes: 1 << 20 });
    const large = Buffer.alloc(CHUNK_BYTES * 2 + 1, 'L');
    rings.add('a', record('a1'));
    rings.add('a', large);
    rings.add('a', record('a3'));
    expect(rings.get('a').map((r) => r.length)).toEqual([RECORD_BYTES, large.length, RECORD_BYTES]);
    expect(rings.get('a')[1]!.equals(large)).toBe(true);
  });

  it('takes about its records’ bytes: chunks filled, let go when their records are', () => {
    const rings = new AttemptRings({ perDestination: 1_000, maxBytes: 1 << 30 });
    // A quiet destination: one record takes a chunk of its own size and four record places.
    rings.add('quiet', record('q1'));
    expect(rings.bytes).toBe(RECORD_BYTES + 4 * 8);
    for (let n = 1; n <= 1_000; n++) rings.add('busy', record(`b${n}`));
    const full = rings.bytes;
    expect(full).toBeGreaterThan(atLeast(1_001));
    expect(full).toBeLessThan(atLeast(1_001) * 1.15); // chunk ends, doubling chunks, 1,024 places
    // A thousand more: the oldest chunks are let go as the newest fill.
    for (let n = 1_001; n <= 2_000; n++) rings.add('busy', record(`b${n}`));
    expect(rings.bytes).toBeLessThanOrEqual(full + CHUNK_BYTES);
    expect(names(rings.get('busy')).slice(0, 2)).toEqual(['b1001', 'b1002']);
  });

  it.each([
    // [records added per destination, in this order], budget in bytes → what is kept
    // (budgets of about ten chunks: over it, a destination loses up to a chunk's records at once)
    ['a busy destination does not push out a quiet one', ['q', 2], ['busy', 200], 40_000],
    ['the busiest share what is left evenly', ['a', 150], ['b', 150], 60_000],
  ] as const)('over the byte budget: %s', (_case, [d1, n1], [d2, n2], maxBytes) => {
    const rings = new AttemptRings({ perDestination: 1_000, maxBytes });
    for (let n = 1; n <= n1; n++) rings.add(d1, record(`${d1}${n}`));
    for (let n = 1; n <= n2; n++) rings.add(d2, record(`${d2}${n}`));
    const kept1 = names(rings.get(d1));
    const kept2 = names(rings.get(d2));
    expect(rings.bytes).toBeLessThanOrEqual(maxBytes);
    // The newest are kept.
    expect(kept1.at(-1)).toBe(`${d1}${n1}`);
    expect(kept2.at(-1)).toBe(`${d2}${n2}`);
    if (d1 === 'q') {
      expect(kept1).toHaveLength(2);
      expect(kept2.length).toBeLessThan(n2);
    } else {
      // Evenly, to a chunk's records: a chunk is let go when all of its records are.
      expect(Math.abs(kept1.length - kept2.length)).toBeLessThanOrEqual(
        Math.floor(CHUNK_BYTES / RECORD_BYTES),
      );
      expect(kept1.length + kept2.length).toBeLessThan(n1 + n2);
    }
  });

  it('stays within both bounds and keeps each destination newest records, whatever the arrivals', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c', 'd'), fc.integer({ min: 0, max: 5_000 })), {
          maxLength: 300,
        }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 40_000 }),
        (arrivals, perDestination, maxBytes) => {
          const rings = new AttemptRings({ perDestination, maxBytes });
          const added = new Map<string, Buffer[]>();
          arrivals.forEach(([destination, size], i) => {
            const item = Buffer.from(`${i}:`.padEnd(size, 'x'));
            rings.add(destination, item);
            added.set(destination, [...(added.get(destination) ?? []), item]);
            // Within the budget, unless everything was dropped (only the destinations' empty places are left).
            expect(rings.bytes <= maxBytes || rings.count === 0).toBe(true);
          });
          let bytes = 0;
          let count = 0;
          for (const [destination, all] of added) {
            const kept = rings.get(destination);
            expect(kept.length).toBeLessThanOrEqual(perDestination);
            // A suffix of what arrived: the newest, in order.
            expect(kept).toEqual(kept.length === 0 ? [] : all.slice(-kept.length));
            bytes += kept.reduce((n, item) => n + item.length, 0);
            count += kept.length;
          }
          expect(rings.count).toBe(count);
          expect(rings.bytes).toBeGreaterThanOrEqual(bytes);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('gives back all it took when everything is dropped', () => {
    const rings = new AttemptRings({ perDestination: 1, maxBytes: 1 << 20 });
    for (let n = 0; n < 100; n++) rings.add('a', Buffer.alloc(1 + (n % 7) * 1_000));
    rings.add('a', Buffer.alloc(1));
    // One record of 1 byte left: one chunk, and the four places of a new ring again.
    expect(rings.count).toBe(1);
    expect(rings.bytes).toBeLessThanOrEqual(CHUNK_BYTES + 4 * 8);
  });

  it('forgets the destinations asked for, with their bytes, and keeps the others and the budget', () => {
    const rings = new AttemptRings({ perDestination: 10, maxBytes: 40 * RECORD_BYTES });
    for (let n = 0; n < 5; n++) for (const d of ['a', 'b', 'c']) rings.add(d, record(`${d}${n}`));
    const keptB = new AttemptRings({ perDestination: 10, maxBytes: 40 * RECORD_BYTES });
    for (let n = 0; n < 5; n++) keptB.add('b', record(`b${n}`));

    expect(rings.forget((d) => d !== 'b')).toBe(2);
    expect([rings.has('a'), rings.has('b'), rings.has('c')]).toEqual([false, true, false]);
    expect(rings.get('a')).toEqual([]);
    expect(names(rings.get('b'))).toEqual(['b0', 'b1', 'b2', 'b3', 'b4']);
    expect({ count: rings.count, bytes: rings.bytes, destinations: rings.destinationCount }).toEqual({
      count: keptB.count,
      bytes: keptB.bytes,
      destinations: 1,
    });
    // The forgotten are gone from the budget's accounting too: over the budget, b loses its oldest.
    for (let n = 5; n < 45; n++) rings.add(`x${n}`, record(`x${n}`));
    expect(rings.bytes).toBeLessThanOrEqual(40 * RECORD_BYTES);
    expect(rings.count).toBeGreaterThan(0);
    const destinations = rings.destinationCount;
    expect(rings.forget(() => true)).toBe(destinations);
    expect({ count: rings.count, bytes: rings.bytes }).toEqual({ count: 0, bytes: 0 });
  });
});
