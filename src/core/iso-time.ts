/**
 * `new Date(ms).toISOString()`, character for character, about five times faster for the
 * timestamps Hookline prints per event (a router formats three or four for every event it reads).
 * The date part comes from toISOString itself, once per UTC day (events of one stretch of time
 * share it); the time of day is arithmetic on the integer ms. Anything else (fractional ms, or
 * beyond the ±8.64e15 ms a Date holds) goes to toISOString, which throws RangeError where it does.
 */
const DAY_MS = 86_400_000;
/** The largest |ms| a Date holds (ECMAScript TimeClip). */
export const MAX_DATE_MS = 8.64e15;

/** "00".."99" and "000".."999": one lookup instead of padding per field. */
const TWO = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));
const THREE = Array.from({ length: 1_000 }, (_, i) => String(i).padStart(3, '0'));

let cachedDay = Number.NaN;
/** toISOString of the cached day's midnight up to and including the `T`. */
let cachedDatePart = '';

export function isoFromMs(ms: number): string {
  if (!Number.isInteger(ms) || ms > MAX_DATE_MS || ms < -MAX_DATE_MS) return new Date(ms).toISOString();
  const day = Math.floor(ms / DAY_MS);
  if (day !== cachedDay) {
    const midnight = new Date(day * DAY_MS).toISOString(); // `…T00:00:00.000Z`: 13 characters of time
    cachedDatePart = midnight.slice(0, midnight.length - 13);
    cachedDay = day;
  }
  let rest = ms - day * DAY_MS;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1_000);
  return `${cachedDatePart}${TWO[hours]}:${TWO[minutes]}:${TWO[seconds]}.${THREE[rest - seconds * 1_000]}Z`;
}

/** Whether `ms` is a time a Date holds (toISOString would not throw for it). */
export function isDateTime(ms: number): boolean {
  return Number.isFinite(ms) && Math.abs(ms) <= MAX_DATE_MS;
}
