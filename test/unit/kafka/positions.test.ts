import { PartitionCursors, rangeSize, readRanges } from '../../../src/kafka/positions';

describe('readRanges', () => {
  it.each([
    [
      'from the low watermark',
      [{ partition: 0, offset: '3' }],
      { low: '3', high: '10' },
      { start: '3', end: '10' },
    ],
    [
      'from a time in the middle',
      [{ partition: 0, offset: '6' }],
      { low: '3', high: '10' },
      { start: '6', end: '10' },
    ],
    [
      'nothing since the time (offset = high)',
      [{ partition: 0, offset: '10' }],
      { low: '3', high: '10' },
      { start: '10', end: '10' },
    ],
    [
      'a start deleted by retention meanwhile',
      [{ partition: 0, offset: '1' }],
      { low: '3', high: '10' },
      { start: '3', end: '10' },
    ],
    [
      'a start past the watermark read at start',
      [{ partition: 0, offset: '12' }],
      { low: '3', high: '10' },
      { start: '10', end: '10' },
    ],
    ['no start given for the partition', [], { low: '3', high: '10' }, { start: '3', end: '10' }],
    [
      'an empty partition',
      [{ partition: 0, offset: '0' }],
      { low: '0', high: '0' },
      { start: '0', end: '0' },
    ],
  ])('%s', (_case, starts, watermark, expected) => {
    expect(readRanges(starts, [{ partition: 0, ...watermark }])).toEqual([{ partition: 0, ...expected }]);
  });

  it('orders partitions and sums what is to read', () => {
    const ranges = readRanges(
      [
        { partition: 1, offset: '5' },
        { partition: 0, offset: '2' },
      ],
      [
        { partition: 1, low: '0', high: '9' },
        { partition: 0, low: '0', high: '2' },
      ],
    );
    expect(ranges.map((r) => r.partition)).toEqual([0, 1]);
    expect(rangeSize(ranges)).toBe(4);
  });
});

describe('PartitionCursors', () => {
  const ranges = [{ partition: 0, start: '5', end: '8' }];

  it('takes each record once, from the start: a seek that repeats records is harmless', () => {
    const cursors = new PartitionCursors(ranges, { bounded: false });
    const verdicts = ['3', '5', '6', '5', '6', '7', '9'].map((o) => cursors.verdict(0, o));
    expect(verdicts).toEqual(['seen', 'take', 'take', 'seen', 'seen', 'take', 'take']);
  });

  it('stops a bounded read at the end, and knows when a partition is finished', () => {
    const cursors = new PartitionCursors(ranges, { bounded: true });
    expect(['5', '6'].map((o) => cursors.verdict(0, o))).toEqual(['take', 'take']);
    expect(cursors.finished(0)).toBe(false);
    expect(['7', '8'].map((o) => cursors.verdict(0, o))).toEqual(['take', 'past_end']);
    expect(cursors.finished(0)).toBe(true);
  });

  it('tells where to go on from: the next offset of each partition, its start before any record', () => {
    const cursors = new PartitionCursors([...ranges, { partition: 1, start: '0', end: '0' }], {
      bounded: false,
    });
    expect(cursors.nextOffsets()).toEqual(
      new Map([
        [0, '5'],
        [1, '0'],
      ]),
    );
    ['5', '6', '5', '9'].forEach((o) => cursors.verdict(0, o));
    expect(cursors.nextOffsets()).toEqual(
      new Map([
        [0, '10'],
        [1, '0'],
      ]),
    );
  });

  it('reads a partition added later from its first record when live, not at all when bounded', () => {
    expect(new PartitionCursors(ranges, { bounded: false }).verdict(3, '0')).toBe('take');
    expect(new PartitionCursors(ranges, { bounded: true }).verdict(3, '0')).toBe('past_end');
  });
});
