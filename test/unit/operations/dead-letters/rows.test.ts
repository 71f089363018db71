import {
  Dictionary,
  ROW_BYTES,
  ROW_KIND,
  decodeRow,
  encodeRow,
  idHash,
  rowMatches,
  type DlqRow,
  type RowFilter,
} from '../../../../src/operations/dead-letters/rows';

const row: DlqRow = {
  offset: 2 ** 40 + 3,
  deadLetteredAtMs: 1_700_000_000_123,
  redrivenAtMs: NaN,
  valuePos: 5 * 2 ** 32,
  valueLength: 1234,
  destination: 7,
  idHash: idHash('src_1:m1:dst_a'),
  reason: 2,
  kind: ROW_KIND.task,
};

describe('dead-letter index rows', () => {
  it('round-trips a row in 48 bytes, large offsets and positions included', () => {
    const buf = encodeRow(row);
    expect(buf).toHaveLength(ROW_BYTES);
    expect(decodeRow(buf)).toEqual(row);
    expect(decodeRow(Buffer.concat([encodeRow({ ...row, offset: 1 }), buf]), ROW_BYTES)).toEqual(row);
  });

  it.each<[string, RowFilter, boolean]>([
    ['no filter', {}, true],
    ['its kind', { kind: ROW_KIND.task }, true],
    ['another kind', { kind: ROW_KIND.undecodable }, false],
    ['its destination', { destination: 7 }, true],
    ['another destination', { destination: 8 }, false],
    ['an unknown destination', { destination: -1 }, false],
    ['its reason', { reason: 2 }, true],
    ['another reason', { reason: 3 }, false],
    ['since its time (inclusive)', { sinceMs: row.deadLetteredAtMs }, true],
    ['since after it', { sinceMs: row.deadLetteredAtMs + 1 }, false],
    ['until its time (exclusive)', { untilMs: row.deadLetteredAtMs }, false],
    ['until after it', { untilMs: row.deadLetteredAtMs + 1 }, true],
    ['pending', { pending: true }, true],
    ['its id', { idHashes: new Set([idHash('src_1:m1:dst_a')]) }, true],
    ['other ids', { idHashes: new Set([idHash('src_1:m2:dst_a')]) }, false],
  ])('matches %s: %s', (_case, filter, expected) => {
    expect(rowMatches(encodeRow(row), 0, filter)).toBe(expected);
  });

  it('does not match a redriven row when only pending ones are wanted', () => {
    expect(rowMatches(encodeRow({ ...row, redrivenAtMs: 5 }), 0, { pending: true })).toBe(false);
  });

  it('gives each value one code, never 0, and -1 for values never seen', () => {
    const dictionary = new Dictionary();
    expect([dictionary.code('a'), dictionary.code('b'), dictionary.code('a')]).toEqual([1, 2, 1]);
    expect([dictionary.lookup('b'), dictionary.lookup('c')]).toEqual([2, -1]);
  });

  it('shares one code among the values past its bound, which a lookup cannot rule out', () => {
    const dictionary = new Dictionary(3);
    expect(['a', 'b', 'c', 'd', 'a'].map((v) => dictionary.code(v))).toEqual([1, 2, 3, 3, 1]);
    expect([dictionary.lookup('a'), dictionary.lookup('c'), dictionary.lookup('never')]).toEqual([1, 3, 3]);
  });

  it('hashes ids with FNV-1a', () => {
    expect(idHash('')).toBe(0x811c9dc5);
    expect(idHash('a')).toBe(0xe40c292c);
    expect(idHash('src_1:m1:dst_a')).not.toBe(idHash('src_1:m2:dst_a'));
  });
});
