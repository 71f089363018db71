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
 * and values the new computation adds (or reads over a longer window) are rebuilt.
 */
export interface CreationPlan {
  computation: Computation;
  full: boolean;
  /** What the history read applies. */
  specs: Specs;
}

export function planCreation(
  partition: AudiencePartition,
  defs: Definitions,
  computation: Computation,
  hourMs: number,
): CreationPlan {
  const live = partition.liveOf(defs, computation.sourceId);
  const merged = specsOfAll([...live, computation], hourMs);
  if (live.length === 0) return { computation, full: true, specs: merged };
  const before = specsOfAll(live, hourMs);
  const counters = new Map(before.counters.map((c) => [c.key, c]));
  const values = new Set(before.values.map((v) => v.key));
  return {
    computation,
    full: false,
    specs: {
      counters: merged.counters.filter((c) => needsRebuild(c, counters.get(c.key))),
      values: merged.values.filter((v) => !values.has(v.key)),
    },
  };
}

/** A counter kept already covers the merged one unless the merged one reads a longer window. */
function needsRebuild(merged: CounterSpec, kept: CounterSpec | undefined): boolean {
  if (!kept) return true;
  if (merged.windowMs === undefined) return false;
  return kept.windowMs === undefined || merged.windowMs > kept.windowMs;
}

/** Whether the plan needs the history read at all (a synced audience added to a live source does not). */
export function needsHistory(plan: CreationPlan): boolean {
  return plan.full || plan.specs.counters.length > 0 || plan.specs.values.length > 0;
}

/**
 * Reads history into a partition for one creation: `start`, then `apply` for each event of the
 * partition in offset order, then `finish`, all into one Outbox.
 */
export class Creation {
  /** Users the history read created (a deletion later in history removes them again). */
  private readonly created = new Set<string>();

  constructor(
    private readonly partition: AudiencePartition,
    readonly plan: CreationPlan,
    private readonly out: Outbox,
  ) {}

  start(): void {
    const { sourceId } = this.plan.computation;
    for (const [key, state] of this.partition.users.entries()) {
      if (state.sourceId !== sourceId) continue;
      this.reset(key, state);
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
      } else if (state) this.reset(key, state);
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

  private reset(key: string, state: UserState): void {
    if (this.plan.full) {
      state.traits = {};
      state.counters = {};
      state.values = {};
    } else {
      for (const c of this.plan.specs.counters) delete state.counters[c.key];
      for (const v of this.plan.specs.values) delete state.values[v.key];
    }
    this.partition.changed(key, state, this.out);
  }
}

function ids(event: { userId?: string; anonymousId?: string }) {
  return { userId: event.userId, anonymousId: event.anonymousId };
}
