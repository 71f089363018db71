import { MAX_EVENT_DEPTH, jsonDepth } from '../events/depth';
import type { JsonObject, JsonValue } from '../events/json';
import type { JsonScan } from '../events/json-scan';

/** How deep a batch request nests objects and arrays outside its events, and in each event. */
export interface BatchNesting {
  /** Outside the events: the root object is 1, its `batch` array 2. */
  outside: number;
  /** The event at `index` (the event object itself is 1); undefined: normalizeEvent measures it. */
  eventDepth(index: number): number | undefined;
}

/**
 * A batch request's nesting, from its scan (`scanJson`, no second pass over the text). Where the
 * scan could not follow the batch (a root key written with an escape), what lies outside the
 * events is measured here, and each event by normalizeEvent: only then is the value walked.
 */
export function batchNesting(
  body: JsonObject,
  items: readonly JsonValue[],
  scan: JsonScan | undefined,
): BatchNesting {
  if (scan && scan.depth <= MAX_EVENT_DEPTH) return { outside: scan.depth, eventDepth: () => scan.depth };
  const depths = scan?.batchDepths;
  if (scan && depths?.length === items.length)
    return { outside: scan.outsideDepth, eventDepth: (i) => depths[i] };
  let outside = 2;
  for (const key of Object.keys(body)) {
    if (key !== 'batch') outside = Math.max(outside, 1 + jsonDepth(body[key], MAX_EVENT_DEPTH));
  }
  return { outside, eventDepth: () => undefined };
}
