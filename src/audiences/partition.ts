import type { HooklineEvent } from '../events/types';
import type { AudienceCommand } from '../records/audience-state';
import type { Computation, Specs } from './computations';
import { hasWindow, specsOfAll, type Definitions } from './definitions';
import { changes, type Announcement, type EvaluationTime } from './evaluate';
import { applyEvent, dropUnread, emptyUserState, pruneBuckets, userKey, type UserState } from './user-state';
import type { UserStates } from './user-states';

/** An announcement to one user. */
export interface UserAnnouncement extends Announcement {
  user: Pick<UserState, 'sourceId' | 'userId' | 'anonymousId'>;
}

/** The time of an evaluation, with the bucket of window counts. */
export interface ProcessorTime extends EvaluationTime {
  bucketMs: number;
}

/** What one step of the processor must write, all in one transaction. */
export class Outbox {
  /**
   * Keys of the users whose state changed: their state as it is in the partition's store when
   * the step commits (a tombstone when gone). Keys only, so a step over many users holds little.
   */
  readonly users = new Set<string>();
  readonly announcements: UserAnnouncement[] = [];
  /** Users whose events the step applied: evaluated once, when all are applied (`announceEvaluated`). */
  readonly evaluate = new Set<string>();
  /** Computations whose status (live, member count) on this partition changed. */
  readonly status = new Set<string>();
  /** The partition's list of live computations changed. */
  partitionChanged = false;

  get empty(): boolean {
    return this.users.size === 0 && this.status.size === 0 && !this.partitionChanged;
  }
}

/** An identify sent by the processor itself (context.personas naming a computation): never input. */
export function isAnnouncement(event: HooklineEvent): boolean {
  if (event.type === 'delete') return false;
  const personas = event.context?.personas;
  return (
    personas !== null &&
    typeof personas === 'object' &&
    !Array.isArray(personas) &&
    typeof (personas as Record<string, unknown>).computation_id === 'string'
  );
}

const isMember = (c: Computation, value: unknown) =>
  c.class === 'audience' ? value === true : value !== undefined && value !== null;

/**
 * The state of one partition's users (every user of a source that has a live computation) and
 * what each input changes: the pure heart of the audience processor. A computation is "live" on
 * the partition once its creation (creation.ts) has announced its first members there.
 */
export class AudiencePartition {
  readonly live = new Set<string>();
  private readonly members = new Map<string, number>();
  private specCache = new Map<string, Specs>();
  private specDefs: Definitions | undefined;

  /** `users`: where the states are kept (all in memory by default). */
  constructor(
    readonly partition: number,
    readonly users: UserStates = new Map<string, UserState>(),
  ) {}

  /** A record of the state topic, while loading. */
  load(key: string, state: UserState | null): void {
    if (state) this.users.set(key, state);
    else this.users.delete(key);
  }

  setLive(ids: Iterable<string>): void {
    this.live.clear();
    for (const id of ids) this.live.add(id);
    this.specCache.clear();
  }

  /** Member counts from the users' announced values (after loading). */
  recount(defs: Definitions): void {
    this.members.clear();
    for (const [, state] of this.users.entries()) {
      for (const [id, value] of Object.entries(state.announced)) {
        const c = defs.get(id);
        if (c && isMember(c, value)) this.members.set(id, (this.members.get(id) ?? 0) + 1);
      }
    }
  }

  membersOf(id: string): number {
    return this.members.get(id) ?? 0;
  }

  liveOf(defs: Definitions, sourceId: string): Computation[] {
    return defs.ofSource(sourceId).filter((c) => this.live.has(c.id));
  }

  /** The merged specs of a source's live computations (cached until definitions or live change). */
  specsOf(defs: Definitions, sourceId: string, hourMs: number): Specs {
    if (this.specDefs !== defs) {
      this.specCache = new Map();
      this.specDefs = defs;
    }
    let specs = this.specCache.get(sourceId);
    if (!specs) this.specCache.set(sourceId, (specs = specsOfAll(this.liveOf(defs, sourceId), hourMs)));
    return specs;
  }

  /** Marks a computation live here (its creation is done). */
  markLive(id: string, out: Outbox): void {
    this.live.add(id);
    this.specCache.clear();
    out.partitionChanged = true;
    out.status.add(id);
  }

  /** Drops computations that were deleted from the catalog. */
  forget(defs: Definitions, out: Outbox): void {
    for (const id of [...this.live]) {
      if (defs.get(id)) continue;
      this.live.delete(id);
      this.members.delete(id);
      this.specCache.clear();
      out.partitionChanged = true;
    }
  }

  /** One event of hookline.events. */
  applyEvent(event: HooklineEvent, defs: Definitions, time: ProcessorTime, out: Outbox): void {
    if (isAnnouncement(event)) return;
    if (event.type === 'delete') {
      this.deleteUser(userKey(event), defs, out);
      return;
    }
    const live = this.liveOf(defs, event.sourceId);
    if (live.length === 0) return;
    const ids = { userId: event.userId, anonymousId: event.anonymousId };
    if (!ids.userId && !ids.anonymousId) return;
    const key = userKey({ sourceId: event.sourceId, ...ids });
    let state = this.users.get(key);
    const created = state === undefined;
    state ??= emptyUserState(event.sourceId, ids);
    applyEvent(state, event, this.specsOf(defs, event.sourceId, time.hourMs), time.bucketMs);
    if (created || event.type === 'identify' || event.type === 'track') this.changed(key, state, out);
    out.evaluate.add(key);
  }

  /**
   * Announces what the step's events changed: each of their users evaluated once, after all the
   * events, so a user with several events in one step gets one identify per computation whose
   * value changed (its latest), not one per event.
   */
  announceEvaluated(defs: Definitions, time: ProcessorTime, out: Outbox): void {
    for (const key of out.evaluate) {
      const state = this.users.get(key);
      if (state) this.announceChanges(key, state, this.liveOf(defs, state.sourceId), time, out);
    }
    out.evaluate.clear();
  }

  /**
   * A synced audience's membership change (docs/audiences.md, "How changes are announced"). False when the definitions
   * know no synced audience of that id (deleted, or not known yet: the admin API refuses a sync
   * until the audience is live, sync-route.ts): the command is dropped.
   */
  applyCommand(command: AudienceCommand, defs: Definitions, time: ProcessorTime, out: Outbox): boolean {
    const audience = defs.get(command.audienceId);
    if (!audience || audience.class !== 'audience' || audience.rule) return false;
    if (!this.live.has(audience.id)) this.markLive(audience.id, out);
    const id = audience.id;
    const touched = new Map<string, UserState>();
    for (const userId of command.add) {
      const key = userKey({ sourceId: audience.sourceId, userId });
      const state = this.users.get(key) ?? emptyUserState(audience.sourceId, { userId });
      state.synced[id] = true;
      if (command.full) (state.syncedBy ??= {})[id] = command.syncId;
      this.changed(key, state, out);
      touched.set(key, state);
    }
    for (const userId of command.remove) {
      const key = userKey({ sourceId: audience.sourceId, userId });
      const state = this.users.get(key);
      if (state?.synced[id]) {
        state.synced[id] = false;
        this.changed(key, state, out);
        touched.set(key, state);
      }
    }
    if (command.full && command.last) {
      for (const [key, state] of this.users.entries()) {
        if (state.sourceId !== audience.sourceId || !state.synced[id]) continue;
        if (state.syncedBy?.[id] === command.syncId) continue;
        state.synced[id] = false;
        this.changed(key, state, out);
        this.announceChanges(key, state, [audience], time, out);
        touched.delete(key);
      }
    }
    for (const [key, state] of touched) this.announceChanges(key, state, [audience], time, out);
    return true;
  }

  /**
   * The periodic sync: time moved on, so windows may have let users in or out. One Outbox per
   * `usersPerStep` changed users (each its own transaction: a sync carries no offsets, and what
   * a crash leaves undone is done by the next sync), so a sync of many users holds few at a time.
   *
   * It also forgets what deleted computations left behind: a user of a source with no computation
   * any more is removed (a tombstone on the state topic), and from the others the announced
   * values, synced memberships, counters and values no live computation reads are dropped (one
   * still being created rebuilds its own from history).
   * So once no computation is left, no state is either, and the processor stops reading
   * hookline.events again (processor.ts).
   */
  *resync(defs: Definitions, time: ProcessorTime, usersPerStep = Infinity): Generator<Outbox> {
    const bySource = new Map<string, { defined: boolean; windowed: Computation[] }>();
    const exists = (id: string) => defs.get(id) !== undefined;
    let out = new Outbox();
    for (const [key, state] of this.users.entries()) {
      let source = bySource.get(state.sourceId);
      if (!source) {
        const windowed = this.liveOf(defs, state.sourceId).filter((c) => hasWindow(c, time.hourMs));
        source = { defined: defs.ofSource(state.sourceId).length > 0, windowed };
        bySource.set(state.sourceId, source);
      }
      if (!source.defined) this.forgetUser(key, out);
      else {
        const specs = this.specsOf(defs, state.sourceId, time.hourMs);
        let changed = dropUnread(state, specs, exists);
        if (source.windowed.length > 0) {
          changed = pruneBuckets(state, specs, time.nowMs, time.bucketMs) || changed;
          this.announceChanges(key, state, source.windowed, time, out);
        }
        if (changed) this.changed(key, state, out);
      }
      if (out.users.size >= usersPerStep) {
        yield out;
        out = new Outbox();
      }
    }
    yield out;
  }

  /** Keeps a user's changed state and lists it for the step's transaction. */
  changed(key: string, state: UserState, out: Outbox): void {
    this.users.set(key, state);
    out.users.add(key);
  }

  /** Announces every computation whose value for the user differs from the one last announced. */
  announceChanges(
    key: string,
    state: UserState,
    computations: Computation[],
    time: EvaluationTime,
    out: Outbox,
  ): void {
    for (const announcement of changes(computations, state, time)) {
      const { computation, value } = announcement;
      const before = state.announced[computation.id];
      state.announced[computation.id] = value;
      const delta = Number(isMember(computation, value)) - Number(isMember(computation, before));
      if (delta !== 0) this.members.set(computation.id, this.membersOf(computation.id) + delta);
      out.status.add(computation.id);
      this.changed(key, state, out);
      const { sourceId, userId, anonymousId } = state;
      out.announcements.push({ ...announcement, user: { sourceId, userId, anonymousId } });
    }
  }

  /** A user no computation reads any more: their state goes (a tombstone when committed). */
  private forgetUser(key: string, out: Outbox): void {
    this.users.delete(key);
    out.users.add(key);
  }

  /** A deletion request: the user's state goes (no announcement; they are no longer counted). */
  private deleteUser(key: string, defs: Definitions, out: Outbox): void {
    const state = this.users.get(key);
    if (!state) return;
    this.users.delete(key);
    out.users.add(key);
    for (const [id, value] of Object.entries(state.announced)) {
      const computation = defs.get(id);
      if (!computation || !isMember(computation, value)) continue;
      this.members.set(id, Math.max(0, this.membersOf(id) - 1));
      out.status.add(id);
    }
  }
}
