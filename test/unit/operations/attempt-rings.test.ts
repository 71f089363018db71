import fc from 'fast-check';
import { AttemptRings, KEPT_OVERHEAD_BYTES } from '../../../src/operations/attempt-rings';

/** Records of 60 bytes: with the overhead, each costs 100. */
const RECORD_BYTES = 100 - KEPT_OVERHEAD_BYTES;
const record = (name: string) => name.padEnd(RECORD_BYTES, '.');
const names = (items: string[]) => items.map((i) => i.replace(/\.+$/, ''));

describe('AttemptRings', () => {
  it('keeps the last perDestination records of each destination, oldest first', () => {
    const rings = new AttemptRings({ perDestination: 3, maxBytes: 1 << 20 });
    for (let n = 1; n <= 5; n++) rings.add('a', record(`a${n}`));
    rings.add('b', record('b1'));
    expect(names(rings.get('a'))).toEqual(['a3', 'a4', 'a5']);
    expect(names(rings.get('b'))).toEqual(['b1']);
    expect(rings.get('none')).toEqual([]);
    expect([rings.count, rings.bytes, rings.destinationCount]).toEqual([4, 400, 2]);
  });

  it.each([
    // [records added per destination, in this order], budget in records → kept per destination
    [
      'a busy destination does not push out a quiet one',
      [
        ['q', 2],
        ['busy', 20],
      ],
      10,
      { q: 2, busy: 8 },
    ],
    [
      'the busiest share what is left evenly',
      [
        ['a', 10],
        ['b', 10],
        ['c', 1],
      ],
      9,
      { a: 4, b: 4, c: 1 },
    ],
    [
      'a new destination takes its share from the largest',
      [
        ['a', 6],
        ['b', 4],
      ],
      6,
      { a: 3, b: 3 },
    ],
    [
      'under the budget nothing is dropped',
      [
        ['a', 3],
        ['b', 3],
      ],
      10,
      { a: 3, b: 3 },
    ],
  ] as const)('over the byte budget: %s', (_case, adds, budgetRecords, kept) => {
    const rings = new AttemptRings({ perDestination: 1_000, maxBytes: budgetRecords * 100 });
    for (const [destination, count] of adds)
      for (let n = 1; n <= count; n++) rings.add(destination, record(`${destination}${n}`));
    for (const [destination, count] of Object.entries(kept)) {
      const all = names(rings.get(destination));
      expect(all).toHaveLength(count);
      // The newest are kept.
      const added = adds.find(([d]) => d === destination)![1];
      expect(all.at(-1)).toBe(`${destination}${added}`);
    }
    expect(rings.bytes).toBeLessThanOrEqual(budgetRecords * 100);
  });

  it('stays within both bounds and keeps each destination newest records, whatever the arrivals', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c', 'd'), fc.integer({ min: 0, max: 200 })), {
          maxLength: 300,
        }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 12 }),
        (arrivals, perDestination, budgetRecords) => {
          const rings = new AttemptRings({ perDestination, maxBytes: budgetRecords * 100 + 99 });
          const added = new Map<string, string[]>();
          arrivals.forEach(([destination, size], i) => {
            const item = `${i}:`.padEnd(size, 'x');
            rings.add(destination, item);
            added.set(destination, [...(added.get(destination) ?? []), item]);
          });
          let bytes = 0;
          let count = 0;
          for (const [destination, all] of added) {
            const kept = rings.get(destination);
            expect(kept.length).toBeLessThanOrEqual(perDestination);
            // A suffix of what arrived: the newest, in order.
            expect(kept).toEqual(kept.length === 0 ? [] : all.slice(-kept.length));
            bytes += kept.reduce((n, item) => n + item.length + KEPT_OVERHEAD_BYTES, 0);
            count += kept.length;
          }
          expect([rings.bytes, rings.count]).toEqual([bytes, count]);
          expect(rings.bytes).toBeLessThanOrEqual(budgetRecords * 100 + 99);
        },
      ),
      { numRuns: 300 },
    );
  });
});
