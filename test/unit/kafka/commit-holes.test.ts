import { commitPointOf, decodeHoles, encodeHoles, MAX_METADATA_CHARS } from '../../../src/kafka/commit-holes';

describe('encodeHoles / decodeHoles', () => {
  it.each([
    [100, [], null],
    [100, [99], 'h1:1'],
    [100, [90, 97], 'h1:3,7'],
    [5_000, [0], `h1:${(5_000).toString(36)}`],
    [1_000_000, [10, 999_998], 'h1:2,lflg'],
  ])('offset %d with holes %j ⇄ %j', (offset, holes, metadata) => {
    expect(encodeHoles({ offset, holes })).toBe(metadata);
    expect(decodeHoles(offset, metadata)).toEqual(holes);
  });

  it.each([[null], [undefined], [''], ['someone else'], ['h1:'], ['h1:0'], ['h1:zz'], ['h1:1,x!']])(
    'reads %j as no holes (not ours, or not valid)',
    (metadata) => {
      expect(decodeHoles(100, metadata)).toEqual([]);
    },
  );
});

describe('commitPointOf', () => {
  const w = (spec: string) =>
    spec.split(' ').map((s) => ({ offset: Number(s.slice(0, -1)), done: s.endsWith('+') }));

  it.each([
    // window: offset + done, offset - in flight
    ['1- 2- 3-', undefined],
    ['1+ 2+', { offset: 3, holes: [] }],
    ['1- 2+ 3-', { offset: 3, holes: [1] }],
    ['1- 2- 3+ 4+ 5- 6-', { offset: 5, holes: [1, 2] }],
    ['1- 5+ 9- 12+', { offset: 13, holes: [1, 9] }],
  ])('%s → %j', (spec, expected) => {
    expect(commitPointOf(w(spec))).toEqual(expected);
  });

  it('stops at the first hole whose distance no longer fits the metadata', () => {
    // 15 fixed characters ('h1:' and room for the first distance), then 2 per close hole
    expect(commitPointOf(w('1- 2+ 3- 4+ 5- 6+'), 17)).toEqual({ offset: 5, holes: [1, 3] });
    expect(commitPointOf(w('1- 2+ 3- 4+ 5- 6+'), 19)).toEqual({ offset: 7, holes: [1, 3, 5] });
    expect(commitPointOf(w('1- 2- 3+'), 15)).toBeUndefined();
  });

  it('keeps the encoding within the limit, however far apart the holes', () => {
    const window = Array.from({ length: 3_000 }, (_, i) => ({ offset: i * 1_000_003, done: i % 2 === 1 }));
    const point = commitPointOf(window)!;
    expect(encodeHoles(point)!.length).toBeLessThanOrEqual(MAX_METADATA_CHARS);
    expect(point.holes.length).toBeGreaterThan(400);
  });
});
