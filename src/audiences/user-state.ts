import type { CounterSpec, Specs, ValueSpec } from './computations';
import { plainNumber, withPlainNumbers } from './plain-numbers';

/**
 * What the audience processor knows of one user of one source, derived from their events (and
 * from synced membership lists). Serialised as JSON in the state record (records/audience-state.ts).
 */
export interface UserState {
  sourceId: string;
  userId?: string;
  anonymousId?: string;
  /**
   * The latest value of every trait from the user's identify calls (merged, later wins). Numbers
   * are plain numbers, here and in `values` (plain-numbers.ts).
   */
  traits: Record<string, unknown>;
  /** Counter key → total and per-bucket (bucket start ms → count or sum) of matching track calls. */
  counters: Record<string, Counter>;
  /** Value key → first and last value of the property seen on matching track calls. */
  values: Record<string, { first?: unknown; last?: unknown }>;
  /** Synced audience id → member (set through the admin API). */
  synced: Record<string, boolean>;
  /** Synced audience id → the full-list sync that last listed the user (docs/audiences.md, "How changes are announced"). */
  syncedBy?: Record<string, string>;
  /**
   * Computation id → the value last announced (true/false for audiences). Written in the same
   * transaction as the announcements, so re-processing after a crash announces nothing twice.
   */
  announced: Record<string, unknown>;
}

export interface Counter {
  total: number;
  buckets: Record<string, number>;
}

export function emptyUserState(sourceId: string, ids: { userId?: string; anonymousId?: string }): UserState {
  return { sourceId, ...ids, traits: {}, counters: {}, values: {}, synced: {}, announced: {} };
}

/** The key of a user of a source on the state topic: what ingest keys their events with. */
export function userKey(state: { sourceId: string; userId?: string; anonymousId?: string }): string {
  return `${state.sourceId}:${state.userId ?? state.anonymousId ?? ''}`;
}

/** The part of an event the state needs. */
export interface StateInput {
  type: string;
  userId?: string;
  anonymousId?: string;
  timestamp: string;
  traits?: Record<string, unknown>;
  event?: string;
  properties?: Record<string, unknown>;
}

/**
 * Applies one event to the state (in place): identify merges traits (unless `traits` is false:
 * a re-read of history for new counters only), track updates the specs it matches.
 * `bucketsBeforeMs` (a re-read of history extending kept counters to a longer window): only
 * buckets that end at or before it are added to, and never the totals.
 */
export function applyEvent(
  state: UserState,
  event: StateInput,
  specs: Specs,
  bucketMs: number,
  options: { traits?: boolean; bucketsBeforeMs?: number } = {},
): void {
  if (event.userId && !state.userId) state.userId = event.userId;
  if (event.anonymousId && !state.anonymousId) state.anonymousId = event.anonymousId;
  if (event.type === 'identify' && event.traits && options.traits !== false)
    Object.assign(state.traits, withPlainNumbers(event.traits));
  if (event.type !== 'track' || event.event === undefined) return;
  const properties = event.properties ?? {};
  const atMs = Date.parse(event.timestamp);
  for (const spec of specs.counters) {
    if (spec.event !== event.event || !matchesWhere(properties, spec.where)) continue;
    addToCounter(state, spec, properties, atMs, bucketMs, options.bucketsBeforeMs);
  }
  for (const spec of specs.values) applyValue(state, spec, event.event, properties);
}

function addToCounter(
  state: UserState,
  spec: CounterSpec,
  properties: Record<string, unknown>,
  atMs: number,
  bucketMs: number,
  bucketsBeforeMs: number | undefined,
): void {
  let amount = 1;
  if (spec.sumProperty !== undefined) {
    const value = plainNumber(propertyAt(properties, spec.sumProperty));
    amount = typeof value === 'number' ? value : Number(value);
    if (value === null || value === undefined || Number.isNaN(amount)) return;
  }
  const bucketStartMs = Math.floor(atMs / bucketMs) * bucketMs;
  if (bucketsBeforeMs !== undefined && !(bucketStartMs + bucketMs <= bucketsBeforeMs)) return;
  const counter = (state.counters[spec.key] ??= { total: 0, buckets: {} });
  if (bucketsBeforeMs === undefined) counter.total += amount;
  if (spec.windowMs !== undefined) {
    const bucket = String(bucketStartMs);
    counter.buckets[bucket] = (counter.buckets[bucket] ?? 0) + amount;
  }
}

function applyValue(
  state: UserState,
  spec: ValueSpec,
  name: string,
  properties: Record<string, unknown>,
): void {
  if (spec.event !== name) return;
  const value = withPlainNumbers(propertyAt(properties, spec.property));
  if (value === undefined) return;
  const slot = (state.values[spec.key] ??= {});
  if (!('first' in slot)) slot.first = value;
  slot.last = value;
}

/**
 * The sum of a counter's buckets that overlap the window ending now. Windows count whole
 * buckets (an hour in production), so an event leaves a window up to one bucket late.
 */
export function windowedCount(
  counter: Counter | undefined,
  windowMs: number,
  nowMs: number,
  bucketMs: number,
): number {
  if (!counter) return 0;
  let sum = 0;
  for (const [start, amount] of Object.entries(counter.buckets)) {
    if (Number(start) + bucketMs > nowMs - windowMs) sum += amount;
  }
  return sum;
}

/**
 * Drops what no computation reads any more (in place): the announced value and synced membership
 * of each computation that no longer `exists`, and the counters and values `specs` (those of the
 * source's live computations) do not read. Traits are kept: any rule may read them. True when
 * something was dropped.
 */
export function dropUnread(state: UserState, specs: Specs, exists: (id: string) => boolean): boolean {
  let dropped = false;
  const drop = (record: Record<string, unknown> | undefined, keep: (key: string) => boolean) => {
    for (const key of Object.keys(record ?? {})) {
      if (keep(key)) continue;
      delete record![key];
      dropped = true;
    }
  };
  drop(state.announced, exists);
  drop(state.synced, exists);
  drop(state.syncedBy, exists);
  // A sync runs this for every user: no allocation for the few specs of a source.
  drop(state.counters, (key) => specs.counters.some((c) => c.key === key));
  drop(state.values, (key) => specs.values.some((v) => v.key === key));
  return dropped;
}

/** Drops buckets no window reads any more; true when something was dropped. */
export function pruneBuckets(state: UserState, specs: Specs, nowMs: number, bucketMs: number): boolean {
  let pruned = false;
  const windows = new Map(specs.counters.map((c) => [c.key, c.windowMs]));
  for (const [key, counter] of Object.entries(state.counters)) {
    const longest = windows.get(key);
    for (const start of Object.keys(counter.buckets)) {
      if (longest === undefined || Number(start) + bucketMs <= nowMs - longest) {
        delete counter.buckets[start];
        pruned = true;
      }
    }
  }
  return pruned;
}

/** The user's latest value of a trait they were sent (own properties only, like `propertyAt`). */
export function traitOf(state: UserState, name: string): unknown {
  return Object.hasOwn(state.traits, name) ? state.traits[name] : undefined;
}

/**
 * The value at a dotted path (`product.price`) of an object. Own properties only, at every step:
 * `constructor`, `toString` or `__proto__` of a plain object are not properties the client sent.
 */
export function propertyAt(object: Record<string, unknown>, path: string): unknown {
  if (Object.hasOwn(object, path)) return object[path];
  let current: unknown = object;
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, part)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** Whether the properties meet every `where` condition (see rules.ts). */
export function matchesWhere(
  properties: Record<string, unknown>,
  where: Record<string, unknown> | undefined,
): boolean {
  if (!where) return true;
  return Object.entries(where).every(([path, condition]) => {
    const value = propertyAt(properties, path);
    return condition !== null && typeof condition === 'object'
      ? meetsCondition(value, condition as Record<string, unknown>)
      : plainNumber(value) === condition;
  });
}

/**
 * One value condition (`equals`, `exists`, `in`, `gt`, `gte`, `lt`, `lte`) on a value. Numbers
 * compare as JavaScript numbers, those the client wrote as `100.0` or `1e3` included.
 */
export function meetsCondition(raw: unknown, condition: Record<string, unknown>): boolean {
  const value = plainNumber(raw);
  if ('exists' in condition) return (value !== undefined && value !== null) === condition.exists;
  if ('equals' in condition) return value === condition.equals;
  if ('in' in condition) return (condition.in as unknown[]).includes(value);
  if (typeof value !== 'number') return false;
  if ('gt' in condition) return value > (condition.gt as number);
  if ('gte' in condition) return value >= (condition.gte as number);
  if ('lt' in condition) return value < (condition.lt as number);
  if ('lte' in condition) return value <= (condition.lte as number);
  return false;
}
