import {
  decideRecord,
  etagOf,
  parseIfMatch,
  recordVersion,
  versionHeaders,
  type KeyState,
  type RecordDecision,
} from '../../../src/catalog/versions';
import { CatalogConflictError } from '../../../src/catalog/errors';
import { expectVersion } from '../../../src/catalog/operations';

const absent: KeyState = { version: undefined, deleted: false };
const deleted: KeyState = { version: undefined, deleted: true };
const at = (version: number): KeyState => ({ version, deleted: false });

describe('decideRecord: compare-and-set on the catalog log', () => {
  const cases: [
    string,
    KeyState,
    { version?: number; repair?: boolean; tombstone?: boolean },
    RecordDecision,
  ][] = [
    ['a record without a version (legacy) applies over anything', at(7), {}, 'apply'],
    ['a legacy tombstone applies', at(7), { tombstone: true }, 'apply'],
    ['a creation applies', absent, { version: 1 }, 'apply'],
    ['the first record a compacted log kept applies', absent, { version: 9 }, 'apply'],
    ['a put after a tombstone is a stale update', deleted, { version: 4 }, 'reject'],
    ['the next version applies', at(3), { version: 4 }, 'apply'],
    ['a second record for the same version loses', at(4), { version: 4 }, 'reject'],
    ['a version from further back loses', at(6), { version: 4 }, 'reject'],
    ['a version ahead of the current one loses', at(3), { version: 5 }, 'reject'],
    ['a tombstone of the current version applies', at(3), { version: 3, tombstone: true }, 'apply'],
    ['a tombstone of an older version loses', at(4), { version: 3, tombstone: true }, 'reject'],
    ['a tombstone of an absent entity changes nothing', deleted, { version: 3, tombstone: true }, 'noop'],
    ['a repair of the current version changes nothing', at(4), { version: 4, repair: true }, 'noop'],
    ['a repair of another version is ignored', at(5), { version: 4, repair: true }, 'reject'],
    [
      'a tombstone repair of a deleted key changes nothing',
      deleted,
      { repair: true, tombstone: true },
      'noop',
    ],
  ];
  it.each(cases)('%s', (_what, key, record, expected) => {
    expect(decideRecord(key, { repair: false, tombstone: false, ...record })).toBe(expected);
  });
});

describe('version headers', () => {
  it('round-trips a version and the repair mark, as strings or buffers', () => {
    expect(recordVersion(versionHeaders(3))).toEqual({ version: 3, repair: false });
    expect(recordVersion(versionHeaders(3, true))).toEqual({ version: 3, repair: true });
    expect(recordVersion({ 'hookline-version': Buffer.from('12') })).toEqual({ version: 12, repair: false });
  });

  it('reads a record without headers, or a malformed version, as unconditional', () => {
    expect(recordVersion(undefined)).toEqual({ repair: false });
    expect(recordVersion({ 'hookline-version': 'x1' })).toEqual({ repair: false });
  });
});

describe('If-Match', () => {
  it.each<[string | undefined, number[] | undefined]>([
    ['"3"', [3]],
    ['3', [3]],
    [' "0" ', [0]],
    // Regression: weak ETags matched; RFC 9110 §13.1.1 compares strongly, so they never do.
    ['W/"3"', []],
    ['W/"2", "3"', [3]],
    // Regression: a list was refused with 400; it matches if any of its tags does.
    ['"2", "3"', [2, 3]],
    ['"2","3" ,, ', [2, 3]],
    ['*', undefined],
    [undefined, undefined],
  ])('%s names versions %j', (header, versions) => {
    expect(parseIfMatch(header)).toEqual(versions);
  });

  // Regression: '"2' (a quote left open) was read as version 2.
  it.each(['"2', '2"', 'W/"2', '"a"', '', ' , ', '"-1"', '*, "2"', '"1" "2"', 'w/"2"'])(
    'refuses %p',
    (header) => {
      expect(() => parseIfMatch(header)).toThrow(RangeError);
    },
  );

  it('is the ETag a read answers', () => {
    expect(parseIfMatch(etagOf(5))).toEqual([5]);
  });

  it.each<[number | readonly number[], number, boolean]>([
    [[2, 3], 3, true],
    [[2, 3], 4, false],
    [[], 3, false], // weak tags only: never
    [3, 3, true],
  ])('If-Match %j at version %i: %s', (ifMatch, version, matches) => {
    const check = () => expectVersion({ id: 'dst_1', version }, { ifMatch });
    if (matches) expect(check()).toEqual({ id: 'dst_1', version });
    else expect(check).toThrow(CatalogConflictError);
  });

  it('says why a list of weak ETags failed', () => {
    expect(() => expectVersion({ id: 'dst_1', version: 3 }, { ifMatch: [] })).toThrow(
      'dst_1 does not match If-Match (weak ETags never match): its current version is 3',
    );
  });
});
