import { z } from 'zod';
import { windowMs, type Rule } from './rules';

/**
 * Computed traits: `{"count": {"event", "withinDays"?}}`, `{"sum": {"event", "property",
 * "withinDays"?}}`, `{"last": {"event", "property"}}`, `{"first": {"event", "property"}}`,
 * `{"lastTrait": "<trait>"}`.
 */
export type Compute =
  | { count: { event: string; withinDays?: number; withinHours?: number } }
  | { sum: { event: string; property: string; withinDays?: number; withinHours?: number } }
  | { last: { event: string; property: string } }
  | { first: { event: string; property: string } }
  | { lastTrait: string };

const name = z.string().min(1);
const within = {
  withinDays: z.number().positive().optional(),
  withinHours: z.number().positive().optional(),
};
const oneWindow = (w: { withinDays?: number; withinHours?: number }) =>
  w.withinDays === undefined || w.withinHours === undefined;
const WINDOW_MESSAGE = 'give withinDays or withinHours, not both';

export const computeSchema: z.ZodType<Compute> = z.union([
  z.strictObject({ count: z.strictObject({ event: name, ...within }).refine(oneWindow, WINDOW_MESSAGE) }),
  z.strictObject({
    sum: z.strictObject({ event: name, property: name, ...within }).refine(oneWindow, WINDOW_MESSAGE),
  }),
  z.strictObject({ last: z.strictObject({ event: name, property: name }) }),
  z.strictObject({ first: z.strictObject({ event: name, property: name }) }),
  z.strictObject({ lastTrait: name }),
]);

/** What the processor evaluates: an audience (rule or synced) or a computed trait, of one source. */
export type Computation =
  | { class: 'audience'; id: string; sourceId: string; key: string; rule?: Rule }
  | { class: 'trait'; id: string; sourceId: string; key: string; compute: Compute };

/** A running count (or sum of a numeric property) of matching track calls, in time buckets. */
export interface CounterSpec {
  key: string;
  event: string;
  where?: Record<string, unknown>;
  /** Sum this property instead of counting. */
  sumProperty?: string;
  /** The longest window any computation reads it over; undefined: only the total is needed. */
  windowMs?: number;
}

/** The first and last value of a property on matching track calls. */
export interface ValueSpec {
  key: string;
  event: string;
  property: string;
}

export interface Specs {
  counters: CounterSpec[];
  values: ValueSpec[];
}

export function counterKey(event: string, where?: Record<string, unknown>, sumProperty?: string): string {
  return JSON.stringify([event, where ?? null, sumProperty ?? null]);
}

export function valueKey(event: string, property: string): string {
  return JSON.stringify([event, property]);
}

/** The counters and values a computation reads. */
export function specsOf(computation: Computation, hourMs: number): Specs {
  const counters: CounterSpec[] = [];
  const values: ValueSpec[] = [];
  const visit = (rule: Rule): void => {
    if ('event' in rule) {
      const { name: event, where } = rule.event;
      counters.push({ key: counterKey(event, where), event, where, windowMs: windowMs(rule.event, hourMs) });
    } else if ('all' in rule) rule.all.forEach(visit);
    else if ('any' in rule) rule.any.forEach(visit);
    else if ('not' in rule) visit(rule.not);
  };
  if (computation.class === 'audience') {
    if (computation.rule) visit(computation.rule);
  } else {
    const c = computation.compute;
    if ('count' in c)
      counters.push({
        key: counterKey(c.count.event),
        event: c.count.event,
        windowMs: windowMs(c.count, hourMs),
      });
    else if ('sum' in c) {
      const { event, property } = c.sum;
      counters.push({
        key: counterKey(event, undefined, property),
        event,
        sumProperty: property,
        windowMs: windowMs(c.sum, hourMs),
      });
    } else if ('last' in c) values.push({ key: valueKey(c.last.event, c.last.property), ...c.last });
    else if ('first' in c) values.push({ key: valueKey(c.first.event, c.first.property), ...c.first });
  }
  return { counters, values };
}

/** The specs of several computations merged: one counter per key, kept as long as its longest window. */
export function mergeSpecs(all: Specs[]): Specs {
  const counters = new Map<string, CounterSpec>();
  const values = new Map<string, ValueSpec>();
  for (const specs of all) {
    for (const c of specs.counters) {
      const seen = counters.get(c.key);
      const longest =
        seen === undefined ? c.windowMs : Math.max(seen.windowMs ?? 0, c.windowMs ?? 0) || undefined;
      counters.set(c.key, { ...c, windowMs: longest });
    }
    for (const v of specs.values) values.set(v.key, v);
  }
  return { counters: [...counters.values()], values: [...values.values()] };
}
