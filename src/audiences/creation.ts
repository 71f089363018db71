import type { HooklineEvent } from '../events/types';
import type { Computation, CounterSpec, Specs } from './computations';
import { specsOfAll, type Definitions } from './definitions';
import { isAnnouncement, type AudiencePartition, type Outbox, type ProcessorTime } from './partition';
import { applyEvent, emptyUserState, userKey, type UserState } from './user-state';

/**
 * How a new computation is created on one partition: the history still on hookline.events (up to
 * where the processor stands) is read again for what the live computations of its source do not
 * keep yet, then every user is evaluated and members (users with a value) are announced.
 *
 * `full`: the source has no live computation on the partition, so nothing of its users is kept
 * yet: their traits, counters and values are rebuilt from history. Otherwise only the counters
 * and values the new computation adds are built from history, and a kept counter it reads over a
 * longer window gets the older buckets it lacks (`extended`).
 *
 * A creation never changes what the live computations see: a kept counter is never reset (its
 * total counts events since long before the topic's retention, which a rebuild would lose), only
 * its buckets older than the window kept so far are added from history.
 */
export interface CreationPlan {
  computation: Computation;
  full: boolean;
  /** What the history read builds (counters and values no live computation reads yet). */
  specs: Specs;
  /** Kept counters read over a longer window now: their bucket history is extended, total kept. */
  extended: ExtendedCounter[];
}

/** A kept counter whose buckets must reach further back than the live computations needed. */
export interface ExtendedCounter {
  /** The merged spec (its windowMs the new, longer window). */
  spec: CounterSpec & { windowMs: number };
  /** The window its buckets were kept for; undefined: none (only the total was kept). */
  keptWindowMs: number | undefined;
}

export function planCreation(
  partition: AudiencePartition,
  defs: Definitions,
  computation: Computation,
  hourMs: number,
): CreationPlan {
  const live = partition.liveOf(defs, computation.sourceId);
  const merged = specsOfAll([...live, computation], hourMs);
  if (live.length === 0) return { computation, full: true, specs: merged, extended: [] };
  const before = specsOfAll(live, hourMs);
  const counters = new Map(before.counters.map((c) => [c.key, c]));
  const values = new Set(before.values.map((v) => v.key));
  const extended: ExtendedCounter[] = [];
  for (const c of merged.counters) {
    const kept = counters.get(c.key);
    if (kept && readsFurther(c, kept)) extended.push({ spec: c, keptWindowMs: kept.windowMs });
  }
  return {
    computation,
    full: false,
    specs: {
      counters: merged.counters.filter((c) => !counters.has(c.key)),
      values: merged.values.filter((v) => !values.has(v.key)),
    },
    extended,
  };
}

/** Whether the merged counter reads a longer window than the kept one keeps buckets for. */
function readsFurther(merged: CounterSpec, kept: CounterSpec): merged is CounterSpec & { windowMs: number } {
  if (merged.windowMs === undefined) return false;
  return kept.windowMs === undefined || merged.windowMs > kept.windowMs;
}

/** Whether the plan needs the history read at all (a synced audience added to a live source does not). */
export function needsHistory(plan: CreationPlan): boolean {
  return (
    plan.full || plan.specs.counters.length > 0 || plan.specs.values.length > 0 || plan.extended.length > 0
  );
}

/**
 * The history read of an extended counter adds to the buckets that end at or before this time
 * (the start of the window kept so far) and never to the total: what is newer, the live
 * computations counted already. Infinity when only the total was kept (no bucket at all).
 */
export function extendBeforeMs(counter: ExtendedCounter, time: ProcessorTime): number {
  return counter.keptWindowMs === undefined ? Infinity : time.nowMs - counter.keptWindowMs;
}

/**
 * Reads history into a partition for one creation: `start`, then `apply` for each event of the
 * partition in offset order, then `finish`, all into one Outbox.
 */
export class Creation {
  /** Users the history read created (a deletion later in history removes them again). */
  private readonly created = new Set<string>();
  /** Per extended counter: where its history read stops (extendBeforeMs), set by `start`. */
  private extendBefore: number[] = [];

  constructor(
    private readonly partition: AudiencePartition,
    readonly plan: CreationPlan,
    private readonly out: Outbox,
  ) {}

  /** `time`: when the creation starts, which fixes where extended counters' history stops. */
  start(time: ProcessorTime): void {
    const { sourceId } = this.plan.computation;
    this.extendBefore = this.plan.extended.map((c) => extendBeforeMs(c, time));
    for (const [key, state] of this.partition.users.entries()) {
      if (state.sourceId !== sourceId) continue;
      this.reset(key, state, time);
    }
  }

  apply(event: HooklineEvent, time: ProcessorTime): void {
    const { sourceId } = this.plan.computation;
    if (event.sourceId !== sourceId || isAnnouncement(event)) return;
    const key = userKey(event.type === 'delete' ? event : { sourceId, ...ids(event) });
    if (event.type === 'delete') {
      const state = this.partition.users.get(key);
      if (this.created.delete(key)) {
        this.partition.users.delete(key);
        this.out.users.delete(key);
      } else if (state) this.reset(key, state, time);
      return;
    }
    const { userId, anonymousId } = ids(event);
    if (!userId && !anonymousId) return;
    let state = this.partition.users.get(key);
    if (!state) {
      state = emptyUserState(sourceId, { userId, anonymousId });
      this.created.add(key);
    }
    applyEvent(state, event, this.plan.specs, time.bucketMs, { traits: this.plan.full });
    this.plan.extended.forEach((extended, i) => {
      const counters = { counters: [extended.spec], values: [] };
      // A user this read created has nothing counted yet: their total is counted too.
      const bucketsBeforeMs = this.created.has(key) ? undefined : this.extendBefore[i];
      applyEvent(state!, event, counters, time.bucketMs, { traits: false, bucketsBeforeMs });
    });
    this.partition.changed(key, state, this.out);
  }

  /** Marks the computation live and announces its first members. */
  finish(time: ProcessorTime): void {
    const { computation } = this.plan;
    this.partition.markLive(computation.id, this.out);
    for (const [key, state] of this.partition.users.entries()) {
      if (state.sourceId !== computation.sourceId) continue;
      this.partition.announceChanges(key, state, [computation], time, this.out);
    }
  }

  private reset(key: string, state: UserState, time: ProcessorTime): void {
    if (this.plan.full) {
      state.traits = {};
      state.counters = {};
      state.values = {};
    } else {
      for (const c of this.plan.specs.counters) delete state.counters[c.key];
      for (const v of this.plan.specs.values) delete state.values[v.key];
      this.plan.extended.forEach((extended, i) => {
        // Buckets the kept window no longer reads (not yet pruned by a sync) are read again
        // from history, like every older one: dropped here so that none is counted twice.
        const buckets = state.counters[extended.spec.key]?.buckets ?? {};
        for (const start of Object.keys(buckets)) {
          if (Number(start) + time.bucketMs <= this.extendBefore[i]!) delete buckets[start];
        }
      });
    }
    this.partition.changed(key, state, this.out);
  }
}

function ids(event: { userId?: string; anonymousId?: string }) {
  return { userId: event.userId, anonymousId: event.anonymousId };
}
