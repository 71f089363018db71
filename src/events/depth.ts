import { HooklineError } from '../core/errors';

/**
 * Deepest nesting of objects and arrays an event may have, the event object itself being level 1
 * (`{"properties":{"a":[1]}}` is 3 deep). Tracking calls need a handful of levels; this bound keeps
 * every recursive reader of an event (JSON.stringify, the lossless parser and serialiser, payload
 * shaping) far from the stack's end: the shallowest of them overflowed at about 3,400 levels
 * (lossless-json's stringify, Node 20; Node 24 reaches a few percent deeper). Deeper events are
 * refused with `too_deep`.
 */
export const MAX_EVENT_DEPTH = 64;

/** JSON text nested too deep for the parser to read it (its recursion would overflow the stack). */
export class JsonTooDeepError extends HooklineError {
  readonly retriable = false;
  readonly code = 'too_deep';
  constructor() {
    super(`JSON nests objects and arrays too deep to be read; the limit is ${MAX_EVENT_DEPTH} levels`);
  }
}

/**
 * How deep `value` nests objects and arrays (a scalar 0, `{}` and `[]` 1), looking no deeper than
 * `atMost + 1`: a deeper value gives `atMost + 1`, and so does a cyclic one. Iterative, so any
 * depth is safe to measure. Objects other than plain ones and arrays (Date, LosslessNumber) are
 * leaves, as the serialisers print them.
 */
export function jsonDepth(value: unknown, atMost: number): number {
  if (!isContainer(value)) return 0;
  const pending: object[] = [value];
  const levels: number[] = [1];
  let deepest = 0;
  while (pending.length > 0) {
    const container = pending.pop()!;
    const level = levels.pop()!;
    if (level > deepest) {
      deepest = level;
      if (deepest > atMost) return deepest;
    }
    const children: unknown[] = Array.isArray(container) ? container : Object.values(container);
    for (const child of children) {
      if (!isContainer(child)) continue;
      pending.push(child);
      levels.push(level + 1);
    }
  }
  return deepest;
}

/** Shown in place of an object or array cut by `cutBelowDepth`. */
export const CUT_MARKER = `[cut: nested deeper than ${MAX_EVENT_DEPTH} levels]`;

/**
 * A copy of `value` in which every object or array that would be deeper than `depth` levels is
 * replaced by `CUT_MARKER`: what is kept of a `too_deep` event, safe for any serialiser.
 */
export function cutBelowDepth(value: unknown, depth: number): unknown {
  if (!isContainer(value)) return value;
  if (depth <= 0) return CUT_MARKER;
  if (Array.isArray(value)) return value.map((item) => cutBelowDepth(item, depth - 1));
  // fromEntries defines a "__proto__" key as an own key, where an assignment would set the prototype.
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, cutBelowDepth(item, depth - 1)]),
  );
}

function isContainer(value: unknown): value is object {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return true;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
