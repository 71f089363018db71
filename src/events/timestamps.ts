import { isoFromMs } from '../core/iso-time';

/**
 * Timestamps as real Segment clients send them:
 *   2009-11-10T23:00:00+0000        analytics-go v2 (no fraction, offset without colon)
 *   2009-11-10T23:00:00.123Z        RFC 3339 with Z
 *   2009-11-10T23:00:00.123456-07:00  fractions of any length, offset with colon
 * Returns epoch milliseconds (fraction truncated to milliseconds), or undefined when the text is
 * not such a timestamp or names an impossible date.
 */
const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):?(\d{2})?)$/;

export function parseClientTimestamp(text: string): number | undefined {
  if (isCanonical(text)) {
    // toISOString's own form, what most clients send: read without the regular expression.
    const year = digits(text, 0, 4);
    const month = digits(text, 5, 2);
    const day = digits(text, 8, 2);
    const hour = digits(text, 11, 2);
    const minute = digits(text, 14, 2);
    const second = digits(text, 17, 2);
    const ms = digits(text, 20, 3);
    if (
      text.charCodeAt(4) === 0x2d && // -
      text.charCodeAt(7) === 0x2d &&
      text.charCodeAt(13) === 0x3a && // :
      text.charCodeAt(16) === 0x3a &&
      (year | month | day | hour | minute | second | ms) >= 0
    ) {
      return utcMs(year, month, day, hour, minute, second, ms);
    }
  }
  const m = ISO_8601.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, zulu, sign, oh, om] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  const ms = frac ? Number(frac.slice(0, 3).padEnd(3, '0')) : 0;
  let utc = utcMs(year, month, day, hour, minute, second, ms);
  if (utc === undefined) return undefined;
  if (!zulu) {
    const offsetHours = Number(oh);
    const offsetMinutes = Number(om ?? '0');
    if (offsetHours > 23 || offsetMinutes > 59) return undefined;
    const offsetMs = (offsetHours * 60 + offsetMinutes) * 60_000;
    utc += sign === '+' ? -offsetMs : offsetMs;
  }
  return Number.isFinite(utc) ? utc : undefined;
}

/** Epoch ms of a UTC date and time, or undefined when it names no real moment. */
function utcMs(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  ms: number,
): number | undefined {
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  if (day > daysInMonth(year, month)) return undefined; // 2023-02-30 and friends
  if (year >= 100) return Date.UTC(year, month - 1, day, hour, minute, second, ms);
  // Date.UTC reads years 0–99 as 1900–1999: set the year itself.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.setUTCHours(hour, minute, second, ms);
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Days of a month (1–12) of the proleptic Gregorian calendar, as Date counts them. */
export function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!;
}

/** The decimal number of `length` digits at `from`, or -1 when one of them is not a digit. */
function digits(text: string, from: number, length: number): number {
  let n = 0;
  for (let i = from; i < from + length; i++) {
    const d = text.charCodeAt(i) - 0x30;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

/** Clock-skew correction: the client's clock is wrong by (sentAt − receivedAt). */
export function correctedTimestampMs(options: {
  receivedAtMs: number;
  sentAtMs: number | undefined;
  originalTimestampMs: number | undefined;
}): number {
  const { receivedAtMs, sentAtMs, originalTimestampMs } = options;
  if (originalTimestampMs === undefined) return receivedAtMs;
  if (sentAtMs === undefined) return originalTimestampMs;
  return receivedAtMs - (sentAtMs - originalTimestampMs);
}

let lastIsoMs = Number.NaN;
let lastIso = '';

/**
 * Epoch ms as Hookline writes timestamps: `new Date(ms).toISOString()`
 * (`2009-11-10T23:00:00.000Z`). `text`, the client's own text for `ms` when there is one, is
 * returned as it is when it already has that form (the common case: clients send toISOString()).
 * The last value is remembered: events of one batch share their receivedAt.
 */
export function isoTimestamp(ms: number, text?: string): string {
  if (text !== undefined && isCanonical(text)) return text;
  if (ms !== lastIsoMs) {
    lastIso = isoFromMs(ms);
    lastIsoMs = ms;
  }
  return lastIso;
}

/**
 * True when `text`, a timestamp parseClientTimestamp accepted, is exactly what toISOString
 * prints for it: UTC (`Z`), three fraction digits, a year from 1000 (earlier years are where
 * two-digit years and sign rules differ).
 */
function isCanonical(text: string): boolean {
  return (
    text.length === 24 &&
    text.charCodeAt(10) === 0x54 && // T
    text.charCodeAt(19) === 0x2e && // .
    text.charCodeAt(23) === 0x5a && // Z
    text.charCodeAt(0) !== 0x30 // not 0xxx
  );
}
