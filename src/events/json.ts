import { LosslessNumber, isLosslessNumber, parse, stringify, type ParseOptions } from 'lossless-json';
import { JsonTooDeepError, MAX_EVENT_DEPTH } from './depth';
import { numbersAreExact, scanJson, type JsonScan } from './json-scan';

export { numbersAreExact };

/**
 * Free-form JSON (properties, traits, context, integrations) travels through Hookline without
 * losing anything a client sent: integers beyond 2^53, the difference between `1` and `1.0`,
 * exponent notation. Numbers that JavaScript represents exactly (and re-prints the same way)
 * become plain numbers; every other number is kept as a LosslessNumber holding the original text.
 */
export type JsonPrimitive = null | boolean | number | string | LosslessNumber;
export type JsonValue = JsonPrimitive | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export { LosslessNumber, isLosslessNumber };

function parseNumber(text: string): number | LosslessNumber {
  const value = Number(text);
  // Plain number only when printing it gives back the exact same text.
  return String(value) === text ? value : new LosslessNumber(text);
}

/**
 * Parses JSON text; throws SyntaxError on invalid JSON. Text whose every number survives a
 * round trip through a JavaScript number (the common case) takes the native JSON.parse, about
 * four times faster; the rest goes through the lossless parser. Duplicate keys: the last one
 * wins, on both paths (the lossless parser would refuse one written twice with different values).
 */
export function parseJson(text: string): JsonValue {
  return parseJsonText(text).value;
}

/**
 * `parseJson`, also saying whether the native JSON.parse read it (`plain`): then the value holds
 * only plain objects, arrays, strings, finite numbers, booleans and null, which JSON.stringify
 * prints exactly as the lossless serialiser would (see `objectByteLength`). With `events` (a
 * tracking request's body), `scan` has the text of the events' object values and their depths
 * (see `scanJson`), and only the `batch` elements holding inexact numbers are read losslessly (see
 * `parseLossless`). The lossless parser recurses: for it, a `batch` element deeper than
 * MAX_EVENT_DEPTH (to be refused) is read by JSON.parse alone, numbers as JavaScript reads them;
 * text it still cannot read throws JsonTooDeepError.
 */
export function parseJsonText(
  text: string,
  options: { events?: boolean } = {},
): { value: JsonValue; plain: boolean; scan?: JsonScan } {
  const scan = options.events ? scanJson(text) : undefined;
  if (scan ? scan.exact : numbersAreExact(text))
    return { value: JSON.parse(text) as JsonValue, plain: true, scan };
  return { value: parseLossless(text, scan), plain: false, scan };
}

/**
 * Reads text that holds inexact numbers. With the scan of a tracking body, only what needs it goes
 * through the lossless parser (in JavaScript, about four times slower than JSON.parse): the `batch`
 * elements holding an inexact number, and the text outside the elements when it holds one. The
 * rest, commonly all but the odd element with an int64, is read by JSON.parse, the lossless
 * elements' places held by `null` meanwhile. Elements deeper than MAX_EVENT_DEPTH (to be refused)
 * are read by JSON.parse too, numbers as JavaScript reads them, since the lossless parser recurses.
 *
 * JSON.parse with a reviver reading each number's source text (`context.source`, Node 22+) would
 * keep the numbers exact natively, but V8 calls the reviver for every value and slices the source
 * of each: on a batch of 100 calls it measured slower than the lossless parser (1.3-1.5x with the
 * odd int64, even with one in every call), and, without the scan, 2.5-3.5x slower than the scan
 * and JSON.parse where there is none (bench/micro/json-parse.ts).
 */
function parseLossless(text: string, scan: JsonScan | undefined): JsonValue {
  const { batchDepths, batchSpans, batchExact } = scan ?? {};
  const apart: number[] = [];
  if (batchDepths && batchSpans && batchExact) {
    for (let i = 0; i < batchDepths.length; i++)
      if (!batchExact[i] || batchDepths[i]! > MAX_EVENT_DEPTH) apart.push(i);
  }
  if (apart.length === 0) return parseLosslessly(text);
  try {
    return parseApart(text, scan!, apart);
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    // Invalid JSON: the error is the one the whole text gives, with the client's positions,
    // unless the lossless parser cannot read that deep.
    try {
      return parseLosslessly(text);
    } catch (whole) {
      throw whole instanceof JsonTooDeepError ? err : whole;
    }
  }
}

/** The text without the `apart` batch elements, then each of them, put back in place. */
function parseApart(text: string, scan: JsonScan, apart: number[]): JsonValue {
  const spans = scan.batchSpans!;
  const deep = (i: number) => scan.batchDepths![i]! > MAX_EVENT_DEPTH;
  let rest = '';
  let at = 0;
  for (const i of apart) {
    rest += `${text.slice(at, spans[2 * i])}null`;
    at = spans[2 * i + 1]!;
  }
  rest += text.slice(at);
  const value = scan.outsideExact ? (JSON.parse(rest) as JsonValue) : parseLosslessly(rest);
  const batch = isJsonObject(value) ? value.batch : undefined;
  if (Array.isArray(batch)) {
    for (const i of apart) {
      const element = text.slice(spans[2 * i], spans[2 * i + 1]);
      batch[i] = deep(i) ? (JSON.parse(element) as JsonValue) : parseLosslessly(element);
    }
  }
  return value;
}

/** As JSON.parse: a key written twice takes its last value. */
const LOSSLESS_OPTIONS: ParseOptions = { parseNumber, onDuplicateKey: ({ newValue }) => newValue };

function parseLosslessly(text: string): JsonValue {
  try {
    return parse(text, null, LOSSLESS_OPTIONS) as JsonValue;
  } catch (err) {
    if (err instanceof RangeError) throw new JsonTooDeepError(); // the parser's stack overflowed
    throw err;
  }
}

/**
 * Serialises JSON, printing LosslessNumbers and bigints verbatim. Values made only of plain
 * objects, arrays, strings, booleans, null and numbers (the common case) take the native
 * JSON.stringify, which prints them identically and about three times faster.
 */
export function stringifyJson(value: unknown): string {
  if (value !== undefined && !needsLossless(value)) return JSON.stringify(value);
  const out = stringify(value, jsonReplacer);
  if (out === undefined) throw new TypeError('value is not JSON-serialisable');
  return out;
}

/** True when JSON.stringify would print the value differently from the lossless serialiser. */
function needsLossless(value: unknown): boolean {
  switch (typeof value) {
    case 'bigint':
      return true;
    case 'object': {
      if (value === null) return false;
      if (Array.isArray(value)) {
        for (const item of value) if (needsLossless(item)) return true;
        return false;
      }
      if (Object.getPrototypeOf(value) !== Object.prototype) return true; // LosslessNumber, Date, Map...
      for (const key in value) if (needsLossless((value as Record<string, unknown>)[key])) return true;
      return false;
    }
    default:
      return false;
  }
}

function jsonReplacer(this: unknown, _key: string, value: unknown): unknown {
  if (typeof value === 'number' && !Number.isFinite(value)) return null; // as JSON.stringify does
  return value;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !isLosslessNumber(value) &&
    Object.getPrototypeOf(value) === Object.prototype
  );
}

/** UTF-8 byte length of a JSON value once serialised. */
export function jsonByteLength(value: unknown): number {
  return Buffer.byteLength(stringifyJson(value), 'utf8');
}

/**
 * `jsonByteLength(object)`, computed field by field so that nothing is serialised only to be
 * measured: strings, numbers, booleans and null are measured without serialising them, and the
 * JSON text of each object or array field is put in `texts` under its key, for a caller that
 * needs it anyway (the Avro encoding of free-form fields) not to serialise it again. `plain` says
 * the object came from the native JSON.parse (`parseJsonText`): its fields are then serialised
 * by JSON.stringify without first looking for values only the lossless serialiser prints right.
 * `given` holds fields' JSON text as the client sent it (`scanJson`, for a `plain` object): it is
 * taken instead of serialising them.
 */
export function objectByteLength(
  object: object,
  texts?: Record<string, string>,
  plain = false,
  given?: ReadonlyMap<string, string>,
): number {
  let bytes = 1; // {
  let fields = 0;
  for (const key of Object.keys(object)) {
    const value = (object as Record<string, unknown>)[key];
    let valueBytes: number;
    if (typeof value === 'string') valueBytes = stringByteLength(value);
    else if (typeof value === 'number') valueBytes = Number.isFinite(value) ? String(value).length : 4;
    else if (typeof value === 'boolean') valueBytes = value ? 4 : 5;
    else if (value === null) valueBytes = 4;
    else if (value === undefined)
      continue; // left out, as JSON.stringify does
    else {
      const json = (given?.get(key) ?? (plain ? JSON.stringify(value) : stringifyJson(value))) as
        string | undefined;
      if (json === undefined) continue; // functions, symbols: left out too
      if (texts) texts[key] = json;
      valueBytes = Buffer.byteLength(json, 'utf8');
    }
    bytes += (fields > 0 ? 1 : 0) + stringByteLength(key) + 1 + valueBytes; // [,]"key":value
    fields++;
  }
  return bytes + 1; // }
}

/** UTF-8 byte length of a string once serialised as JSON (quotes and escapes included). */
function stringByteLength(value: string): number {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    // Beyond printable ASCII, or a character JSON escapes: let the serialiser say.
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return Buffer.byteLength(JSON.stringify(value));
  }
  return value.length + 2;
}
