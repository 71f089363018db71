import { exactNumberEnd, numberEnd, stringEnd } from './json-tokens';

export { numbersAreExact } from './json-tokens';

/**
 * One pass over a tracking request's JSON text, before JSON.parse reads it, finding out:
 *  - whether every number prints back as the same text from a JavaScript number (then JSON.parse
 *    loses nothing: `exact`);
 *  - the text of each object or array value of the events' top-level keys (`properties`,
 *    `context`, ...), for the event's root object and for each element of its `batch` array, when
 *    that text is what JSON.stringify would print for the parsed value: no whitespace and no
 *    backslash in it, and `exact`. Ingest then need not serialise those values again. The text
 *    differs from JSON.stringify's in two ways JSON does not tell apart: keys stay in the client's
 *    order (V8 lists integer-like keys first), and a key written twice inside the value stays twice
 *    (JSON.parse keeps the last one; so do receivers' parsers).
 * and, whether the numbers are exact or not:
 *  - how deep the text nests objects and arrays, as a whole, outside the `batch` elements, and in
 *    each of them (see MAX_EVENT_DEPTH), with where each element starts and ends;
 *  - whether the numbers are exact outside the `batch` elements, and in each of them (a parser can
 *    then read only the inexact elements losslessly).
 * Invalid JSON is left to the parser: the scan neither throws nor reads past the text.
 */
export interface JsonScan {
  exact: boolean;
  /** The root object's object and array values' texts, by key (undefined: the root is not an object). */
  root: ReadonlyMap<string, string> | undefined;
  /**
   * The same for each element of the root's `batch` array; undefined where it is not an object.
   * Undefined as a whole when `root` is: a root key with an escape may be another "batch".
   */
  batch: (ReadonlyMap<string, string> | undefined)[] | undefined;
  /** Deepest nesting of objects and arrays in the text: the root object is 1. */
  depth: number;
  /**
   * Deepest nesting outside the elements of the root's `batch` array (the array itself is 2), and
   * in each element (the element itself is 1; 0 for a scalar), with the element's text as
   * `text.slice(batchSpans[2 * i], batchSpans[2 * i + 1])` (-1, -1 for a scalar). Undefined, like
   * `batch`, when a root key has an escape, or when there is no `batch` array; `outsideDepth` is
   * then `depth`.
   */
  outsideDepth: number;
  batchDepths: number[] | undefined;
  batchSpans: number[] | undefined;
  /**
   * `exact` outside the `batch` elements (a scalar element counts as outside), and in each element;
   * like `outsideDepth` and `batchDepths`: when `batchExact` is undefined, `outsideExact` is `exact`.
   */
  outsideExact: boolean;
  batchExact: boolean[] | undefined;
}

const QUOTE = 0x22;
const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const isWhitespace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const isScalarStart = (c: number) =>
  c === 0x2d || (c >= 0x30 && c <= 0x39) || c === 0x74 || c === 0x66 || c === 0x6e;

/** Depth (open containers) inside the root object, and inside an element of its `batch` array. */
const ROOT_DEPTH = 1;
const BATCH_DEPTH = 2;
const ITEM_DEPTH = 3;
/** `trackedDepth` while no object is followed: a depth that stray closing brackets never reach. */
const NOT_FOLLOWING = Number.NEGATIVE_INFINITY;

export function scanJson(text: string): JsonScan {
  const length = text.length;
  let exact = true;
  let root: Map<string, string> | undefined;
  let batch: (Map<string, string> | undefined)[] | undefined;
  let depth = 0;
  // The deepest nesting so far in the current region: outside the batch's elements, or in one.
  let deepest = 0;
  let outsideDeepest = 0;
  let inElement = false;
  let batchDepths: number[] | undefined;
  let batchSpans: number[] | undefined;
  // Whether the numbers are exact in the current region (outside the batch's elements, or in one).
  let regionExact = true;
  let outsideExact = true;
  let batchExact: boolean[] | undefined;
  // The object whose keys are followed (the root, or the current batch element) and where in it.
  let tracked: Map<string, string> | undefined;
  let trackedDepth = NOT_FOLLOWING;
  let expectKey = false;
  let key: string | undefined;
  // A key with an escape: which key it is is not known, so no text of that object is kept.
  let rootPoisoned = false;
  let itemPoisoned = false;
  let inBatch = false;
  let expectElement = false;
  // The object or array value being measured: its start, key, and whether it is printed as is.
  let spanStart = -1;
  let spanKey: string | undefined;
  let spanClean = true;
  let nextBackslash = text.indexOf('\\');
  const hasBackslash = (start: number, end: number) => {
    if (nextBackslash !== -1 && nextBackslash < start) nextBackslash = text.indexOf('\\', start);
    return nextBackslash !== -1 && nextBackslash < end;
  };
  const scalarValue = () => {
    if (depth === trackedDepth && key !== undefined) tracked!.delete(key);
    if (depth === BATCH_DEPTH && inBatch && expectElement) {
      batch!.push(undefined);
      batchDepths!.push(0);
      batchSpans!.push(-1, -1);
      batchExact!.push(true);
      expectElement = false;
    }
  };

  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (end === -1) break; // unterminated: invalid JSON, left to the parser
      if (depth === trackedDepth && expectKey) {
        if (hasBackslash(i + 1, end)) {
          if (trackedDepth === ITEM_DEPTH) itemPoisoned = true;
          else rootPoisoned = true;
        }
        key = text.slice(i + 1, end);
        expectKey = false;
      } else scalarValue();
      i = end;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (depth === trackedDepth && key !== undefined && key !== 'batch') {
        spanStart = i;
        spanKey = key;
        spanClean = true;
      }
      if (depth === 0 && c === OPEN_OBJECT) {
        tracked = root = new Map();
        trackedDepth = ROOT_DEPTH;
        expectKey = true;
      } else if (depth === ROOT_DEPTH && tracked === root && key === 'batch' && c === OPEN_ARRAY) {
        batch = []; // a second "batch" key replaces the first, as in JSON.parse
        // Its elements become outside text: inexact ones make the outside so.
        if (batchExact?.includes(false)) regionExact = false;
        batchDepths = [];
        batchSpans = [];
        batchExact = [];
        inBatch = true;
        expectElement = true;
      } else if (depth === BATCH_DEPTH && inBatch && expectElement) {
        expectElement = false;
        outsideDeepest = deepest;
        deepest = 0;
        outsideExact = regionExact;
        regionExact = true;
        inElement = true;
        batchSpans!.push(i);
        if (c === OPEN_OBJECT) {
          tracked = new Map();
          batch!.push(tracked);
          trackedDepth = ITEM_DEPTH;
          expectKey = true;
          key = undefined;
          itemPoisoned = false;
        } else batch!.push(undefined);
      }
      depth++;
      if (depth > deepest) deepest = depth;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
      if (inElement && depth === BATCH_DEPTH) {
        inElement = false;
        batchDepths!.push(deepest - BATCH_DEPTH);
        batchSpans!.push(i + 1);
        deepest = outsideDeepest;
        batchExact!.push(regionExact);
        regionExact = outsideExact;
      }
      if (spanStart >= 0 && depth === trackedDepth) {
        const end = i + 1;
        if (spanClean && !hasBackslash(spanStart, end)) tracked!.set(spanKey!, text.slice(spanStart, end));
        else tracked!.delete(spanKey!);
        spanStart = -1;
      } else if (depth === trackedDepth - 1) {
        // The followed object closed: a batch element hands over to the root (at depth 1 again
        // once the array closes); the root's end ends the scan's interest.
        if (trackedDepth === ITEM_DEPTH) {
          if (itemPoisoned) batch![batch!.length - 1] = undefined;
          tracked = root;
          trackedDepth = ROOT_DEPTH;
          key = 'batch';
        } else {
          if (rootPoisoned) root = undefined;
          tracked = undefined;
          trackedDepth = NOT_FOLLOWING;
        }
      } else if (depth === ROOT_DEPTH && inBatch) inBatch = false;
    } else if (c === COMMA) {
      if (depth === trackedDepth) {
        expectKey = true;
        key = undefined;
      } else if (depth === BATCH_DEPTH && inBatch) expectElement = true;
    } else if (isWhitespace(c)) {
      if (spanStart >= 0) spanClean = false;
    } else if (isScalarStart(c)) {
      scalarValue();
      if (c === 0x74 || c === 0x66 || c === 0x6e) continue; // true, false, null
      let end = regionExact ? exactNumberEnd(text, i) : -1;
      if (end === -1) {
        // Texts are of no use any more (JSON.parse will not read this text), depths still are.
        exact = regionExact = false;
        end = numberEnd(text, i);
      }
      i = end - 1;
    }
  }
  if (inElement) {
    // Unterminated (invalid JSON, left to the parser): what the element reached counts as outside.
    inElement = false;
    if (deepest < outsideDeepest) deepest = outsideDeepest;
    regionExact = regionExact && outsideExact;
  }
  outsideExact = regionExact;
  let whole = deepest;
  for (const d of batchDepths ?? []) if (d + BATCH_DEPTH > whole) whole = d + BATCH_DEPTH;
  const depths = { depth: whole, outsideDepth: deepest, batchDepths, batchSpans, outsideExact, batchExact };
  // A root key with an escape may be "batch" itself (`"b\u0061tch"`): JSON.parse then keeps that
  // key's array, not the one followed here, so neither the root's texts nor its elements' hold.
  if (rootPoisoned) {
    const unknown = {
      outsideDepth: whole,
      batchDepths: undefined,
      batchSpans: undefined,
      outsideExact: exact,
      batchExact: undefined,
    };
    return { exact, root: undefined, batch: undefined, ...depths, ...unknown };
  }
  if (!exact) return { exact, root: undefined, batch: undefined, ...depths };
  return { exact, root, batch, ...depths };
}
