import { counterKey, valueKey, type Computation, type Compute } from './computations';
import { windowMs, type Rule } from './rules';
import { meetsCondition, traitOf, windowedCount, type UserState } from './user-state';

export interface EvaluationTime {
  nowMs: number;
  /** One hour: what `withinHours` and `withinDays` count in. */
  hourMs: number;
  /** The time bucket of window counts (HOOKLINE_AUDIENCE_BUCKET); default one hour. */
  bucketMs?: number;
}

/** Whether the user meets the rule now. */
export function evaluateRule(rule: Rule, state: UserState, time: EvaluationTime): boolean {
  if ('all' in rule) return rule.all.every((r) => evaluateRule(r, state, time));
  if ('any' in rule) return rule.any.some((r) => evaluateRule(r, state, time));
  if ('not' in rule) return !evaluateRule(rule.not, state, time);
  if ('trait' in rule) {
    const { name, ...condition } = rule.trait;
    return meetsCondition(traitOf(state, name), condition);
  }
  const { atLeast, atMost } = rule.event;
  const counter = state.counters[eventCounterKey(rule.event)];
  const window = windowMs(rule.event, time.hourMs);
  const count =
    window === undefined
      ? (counter?.total ?? 0)
      : windowedCount(counter, window, time.nowMs, time.bucketMs ?? time.hourMs);
  const min = atLeast ?? (atMost === undefined ? 1 : 0);
  return count >= min && (atMost === undefined || count <= atMost);
}

/** The counter key of an event condition, computed once per condition object (evaluation is hot). */
const conditionKeys = new WeakMap<object, string>();
function eventCounterKey(condition: { name: string; where?: Record<string, unknown> }): string {
  let key = conditionKeys.get(condition);
  if (key === undefined) conditionKeys.set(condition, (key = counterKey(condition.name, condition.where)));
  return key;
}

/** A computed trait's value for the user now; undefined when the user has none. */
export function computeValue(compute: Compute, state: UserState, time: EvaluationTime): unknown {
  if ('lastTrait' in compute) return traitOf(state, compute.lastTrait) ?? undefined;
  if ('last' in compute) return state.values[valueKey(compute.last.event, compute.last.property)]?.last;
  if ('first' in compute) return state.values[valueKey(compute.first.event, compute.first.property)]?.first;
  const spec = 'count' in compute ? compute.count : compute.sum;
  const counter =
    state.counters[counterKey(spec.event, undefined, 'sum' in compute ? compute.sum.property : undefined)];
  if (!counter) return undefined; // never did the event
  const window = windowMs(spec, time.hourMs);
  return window === undefined
    ? counter.total
    : windowedCount(counter, window, time.nowMs, time.bucketMs ?? time.hourMs);
}

/**
 * The value to announce for a computation: true/false for an audience, the computed value for a
 * trait (null once a value it had is gone); undefined when there is nothing to say yet.
 */
export function currentValue(computation: Computation, state: UserState, time: EvaluationTime): unknown {
  if (computation.class === 'audience') {
    if (!computation.rule) return state.synced[computation.id] ?? undefined;
    return evaluateRule(computation.rule, state, time);
  }
  const value = computeValue(computation.compute, state, time);
  return value === undefined && computation.id in state.announced ? null : value;
}

/** A change to announce: the computation and its new value. */
export interface Announcement {
  computation: Computation;
  value: unknown;
}

/**
 * The announcements the user's state calls for: every computation whose value differs from the
 * one last announced. A user never announced as a member is not told `false`.
 */
export function changes(computations: Computation[], state: UserState, time: EvaluationTime): Announcement[] {
  const out: Announcement[] = [];
  for (const computation of computations) {
    const value = currentValue(computation, state, time);
    const before = state.announced[computation.id];
    if (value === undefined) continue;
    if (before === undefined && (value === false || value === null)) continue;
    if (value === before) continue;
    if (JSON.stringify(value) !== JSON.stringify(before)) out.push({ computation, value });
  }
  return out;
}
