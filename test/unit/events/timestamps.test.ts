import fc from 'fast-check';
import {
  correctedTimestampMs,
  daysInMonth,
  isoTimestamp,
  parseClientTimestamp,
} from '../../../src/events/timestamps';

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

describe('parseClientTimestamp', () => {
  it.each([
    ['2009-11-10T23:00:00+0000', '2009-11-10T23:00:00.000Z'], // analytics-go v2
    ['2009-11-10T23:00:00Z', '2009-11-10T23:00:00.000Z'],
    ['2009-11-10T23:00:00.5Z', '2009-11-10T23:00:00.500Z'],
    ['2009-11-10T23:00:00.123456789Z', '2009-11-10T23:00:00.123Z'], // truncated to ms
    ['2009-11-10T23:00:00.123-07:00', '2009-11-11T06:00:00.123Z'],
    ['2009-11-10T23:00:00+05:30', '2009-11-10T17:30:00.000Z'],
    ['2009-11-10T01:00:00+02', '2009-11-09T23:00:00.000Z'],
    ['2024-02-29T12:00:00Z', '2024-02-29T12:00:00.000Z'],
    ['2024-02-29T12:00:00.999Z', '2024-02-29T12:00:00.999Z'], // toISOString's form: read without the regex
    ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
    ['0050-06-15T10:00:00Z', '0050-06-15T10:00:00.000Z'], // not 1950, as Date.UTC would have it
    ['0000-02-29T00:00:00Z', '0000-02-29T00:00:00.000Z'], // year 0 is a leap year (proleptic)
  ])('%s → %s', (text, expected) => expect(iso(parseClientTimestamp(text))).toBe(expected));

  it.each([
    ['not a date'],
    ['2009-11-10'],
    ['2009-11-10T23:00:00'], // no zone: ambiguous
    ['2023-02-30T00:00:00Z'],
    ['2009-13-10T23:00:00Z'],
    ['2009-11-10T24:00:00Z'],
    ['1257894000'],
    [''],
    ['2023-02-30T00:00:00.000Z'], // the same in toISOString's form
    ['2009-13-10T23:00:00.000Z'],
    ['2009-11-10T24:00:00.000Z'],
    ['2009-11-10T23:60:00.000Z'],
    ['2009-11-10T23:00:60.000Z'],
    ['2009-00-10T23:00:00.000Z'],
    ['2009-11-00T23:00:00.000Z'],
    ['2009-1a-10T23:00:00.000Z'],
    ['2009_11-10T23:00:00.000Z'],
    ['2009-11-10T23-00:00.000Z'],
  ])('refuses %j', (text) => expect(parseClientTimestamp(text)).toBeUndefined());
});

describe('daysInMonth', () => {
  it.each([
    [2023, 2, 28],
    [2024, 2, 29],
    [1900, 2, 28], // a century: no leap day
    [2000, 2, 29], // but every fourth century has one
    [2100, 2, 28],
    [2024, 4, 30],
    [2024, 12, 31],
  ])('%i-%i has %i days', (year, month, days) => expect(daysInMonth(year, month)).toBe(days));

  it('agrees with Date for every month of years 0–9999', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 1, max: 12 }), (year, month) => {
        const lastDay = new Date(Date.UTC(2000, 0, 1));
        lastDay.setUTCFullYear(year, month, 0); // not Date.UTC: it reads years 0–99 as 1900–1999
        expect(daysInMonth(year, month)).toBe(lastDay.getUTCDate());
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('correctedTimestampMs', () => {
  it('moves the timestamp by the client clock error measured with sentAt', () => {
    // Client clock is 1 hour fast: it says sentAt 13:00 when the server receives at 12:00.
    expect(
      iso(
        correctedTimestampMs({
          receivedAtMs: Date.parse('2024-01-01T12:00:00.000Z'),
          sentAtMs: Date.parse('2024-01-01T13:00:00.000Z'),
          originalTimestampMs: Date.parse('2024-01-01T12:59:00.000Z'),
        }),
      ),
    ).toBe('2024-01-01T11:59:00.000Z');
  });

  it('keeps the original timestamp when sentAt is absent, and uses receivedAt when both are', () => {
    const receivedAtMs = Date.parse('2024-01-01T12:00:00.000Z');
    expect(correctedTimestampMs({ receivedAtMs, sentAtMs: undefined, originalTimestampMs: 5 })).toBe(5);
    expect(correctedTimestampMs({ receivedAtMs, sentAtMs: 7, originalTimestampMs: undefined })).toBe(
      receivedAtMs,
    );
  });
});

describe('isoTimestamp', () => {
  it.each([
    ['2009-11-10T23:00:00.123Z'], // already canonical: returned as it is
    ['2009-11-10T23:00:00+0000'],
    ['2009-11-10T23:00:00Z'],
    ['2009-11-10t23:00:00.123z'],
    ['2009-11-10 23:00:00.123Z'],
    ['2009-11-10T23:00:00.1234Z'],
    ['2009-11-10T23:00:00.123+01:00'],
    ['0999-11-10T23:00:00.123Z'],
    ['0050-01-01T00:00:00.000Z'],
  ])('of %s is what toISOString prints for it', (text) => {
    const ms = parseClientTimestamp(text)!;
    expect(isoTimestamp(ms, text)).toBe(new Date(ms).toISOString());
    expect(isoTimestamp(ms)).toBe(new Date(ms).toISOString());
  });

  it('remembers the last value without mixing values up', () => {
    for (const ms of [0, 0, 1, 1_700_000_000_000, 1, -1])
      expect(isoTimestamp(ms)).toBe(new Date(ms).toISOString());
  });
});
