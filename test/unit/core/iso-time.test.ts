import fc from 'fast-check';
import { isDateTime, isoFromMs, MAX_DATE_MS } from '../../../src/core/iso-time';

describe('isoFromMs', () => {
  it.each([
    ['the epoch', 0],
    ['a millisecond before it', -1],
    ['the last millisecond of a day', 86_399_999],
    ['a day before the epoch, at midnight', -86_400_000],
    ['year 0000', -62_167_219_200_000],
    ['year −000001 (six-digit form)', -62_167_219_200_001],
    ['the last millisecond of 9999', 253_402_300_799_999],
    ['year +010000', 253_402_300_800_000],
    ['the latest time a Date holds', MAX_DATE_MS],
    ['the earliest', -MAX_DATE_MS],
    ['a fraction of a millisecond (toISOString truncates it)', 1_700_000_000_123.7],
    ['a negative fraction', -1.5],
  ])('prints %s as toISOString does', (_name, ms) => {
    expect(isoFromMs(ms)).toBe(new Date(ms).toISOString());
  });

  it('prints any time a Date holds as toISOString does, in any order of days', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -MAX_DATE_MS, max: MAX_DATE_MS }), { maxLength: 20 }),
        (times) => {
          for (const ms of times) expect(isoFromMs(ms)).toBe(new Date(ms).toISOString());
        },
      ),
      { numRuns: 500 },
    );
    // Neighbouring milliseconds (one cached day, and crossing midnight).
    fc.assert(
      fc.property(
        fc.integer({ min: -4e12, max: 4e12 }),
        fc.integer({ min: 0, max: 200_000_000 }),
        (start, span) => {
          for (let ms = start; ms <= start + span; ms += 9_999_991)
            expect(isoFromMs(ms)).toBe(new Date(ms).toISOString());
        },
      ),
      { numRuns: 200 },
    );
  });

  it('throws RangeError where toISOString does', () => {
    for (const ms of [Number.NaN, Infinity, MAX_DATE_MS + 1, -MAX_DATE_MS - 1]) {
      expect(() => new Date(ms).toISOString()).toThrow(RangeError);
      expect(() => isoFromMs(ms)).toThrow(RangeError);
    }
  });

  it('says which times a Date holds', () => {
    expect([0, MAX_DATE_MS, -MAX_DATE_MS, 1.5].map(isDateTime)).toEqual([true, true, true, true]);
    expect([MAX_DATE_MS + 1, Number.NaN, Infinity].map(isDateTime)).toEqual([false, false, false]);
  });
});
