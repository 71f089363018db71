import { backoffDelayMs, retriedFailureLevel, sleep as defaultSleep } from '../core/backoff';
import type { Clock } from '../core/clock';
import { errorMessage } from '../core/errors';
import type { Logger } from '../observability/logger';
import type { CommittedPoint } from './committed';
import type { DoneBefore } from './consumer-options';
import { PartitionOffsets, type PartitionCommit } from './offset-tracker';

/**
 * How a partition changes hands between live members without the new owner handling again what
 * the old one finished but had not committed yet: what was in flight at the rebalance (kafkajs
 * does not wait for it) and the last commit delay's work.
 *
 * The old owner keeps the tracker of a partition it gave up (it *retires*) for up to the grace:
 * its in-flight messages finish, their offsets are committed, and once nothing is left in flight
 * it commits the partition *released* (RELEASED_METADATA, commit-holes.ts). The new owner reads the
 * committed point until it says released, for up to the same grace, then starts from it. A crashed
 * owner never releases: when no other member held the partition or is still finishing it (what
 * each tells at its join, `partitionOrphaned`), its successor starts at once, else after the
 * grace; either way it handles the holes again, less what `doneBefore` finds already done
 * (`trackerFrom`).
 */
export const HANDOVER_GRACE_MS = 2_000;

export interface ReleaseWait {
  read: () => Promise<CommittedPoint | undefined>;
  stillOurs: () => boolean;
  graceMs: number;
  clock: Clock;
  logger: Logger;
  /** Logged with what this says (the partition, for example). */
  context?: Record<string, unknown>;
  /**
   * True when no other member of the group held the partition before this rebalance: its owner
   * left the group (crashed) and nobody will release it, so there is no grace to wait.
   */
  orphaned?: () => Promise<boolean>;
  sleep?: (ms: number) => Promise<void>;
}
const RELEASE_POLL_MS = 100;

/**
 * The committed point to take a partition over from: the first one read that the old owner
 * released, or none was ever committed; else the last one read once `graceMs` passed. A read that
 * fails is tried again (with backoff, logged) until one works; undefined once the partition is no
 * longer ours.
 */
export async function awaitRelease(options: ReleaseWait): Promise<CommittedPoint | undefined> {
  const sleep = options.sleep ?? defaultSleep;
  const startedMs = options.clock.now();
  let orphaned: Promise<boolean> | undefined;
  let waitLogged = false;
  for (let failures = 0; options.stillOurs();) {
    let point: CommittedPoint | undefined;
    try {
      point = await options.read();
    } catch (err) {
      failures++;
      options.logger[retriedFailureLevel(failures)](
        { ...options.context, err: errorMessage(err) },
        'cannot read the committed offset',
      );
      await sleep(backoffDelayMs(failures));
      continue;
    }
    if (!point || point.released) return point;
    orphaned ??= isOrphaned(options);
    if (await orphaned) {
      options.logger.info(
        { ...options.context, offset: point.offset, holes: point.holes.length },
        'partition taken over from a member that left the group: its holes are handled again',
      );
      return point;
    }
    if (!waitLogged) {
      waitLogged = true;
      options.logger.debug(
        { ...options.context, offset: point.offset, holes: point.holes.length, graceMs: options.graceMs },
        'waiting for the previous owner to release the partition',
      );
    }
    if (options.clock.now() - startedMs >= options.graceMs) {
      options.logger.info(
        { ...options.context, offset: point.offset, holes: point.holes.length },
        'partition taken over unreleased (its previous owner is gone): its holes are handled again',
      );
      return point;
    }
    await sleep(RELEASE_POLL_MS);
  }
  return undefined;
}

/**
 * The tracker of a partition taken over from `point` (see `awaitRelease`). Taken over unreleased,
 * its previous owner crashed or is late: the offsets `doneBefore` finds it finished without
 * committing them count as done, not handled again. A look-up that fails costs only those
 * duplicates (logged). A partition its group never committed comes as a point at its start that
 * nobody released (`takeOverPoint`), so the same applies to an owner that crashed before its first
 * commit there.
 */
export async function trackerFrom(
  point: CommittedPoint | undefined,
  options: {
    doneBefore?: DoneBefore;
    topic: string;
    partition: number;
    logger: Logger;
  },
): Promise<PartitionOffsets> {
  if (!point) return new PartitionOffsets();
  const tracker = PartitionOffsets.restored(point);
  if (point.released || !options.doneBefore) return tracker;
  const { topic, partition, logger } = options;
  try {
    const done = tracker.doneBefore(await options.doneBefore(topic, partition));
    if (done > 0)
      logger.info({ topic, partition, done }, 'work its previous owner finished is not done again');
  } catch (err) {
    logger.warn(
      { topic, partition, err: errorMessage(err) },
      'cannot tell what the previous owner finished: it is done again',
    );
  }
  return tracker;
}

/**
 * The tracker to take a partition over with: `awaitRelease`, then `trackerFrom`. Undefined once
 * the partition is no longer ours.
 */
export async function takeOverTracker(
  options: Omit<ReleaseWait, 'context'> & {
    topic: string;
    partition: number;
    doneBefore?: DoneBefore;
  },
): Promise<PartitionOffsets | undefined> {
  const { topic, partition } = options;
  const point = await awaitRelease({ ...options, context: { topic, partition } });
  if (!options.stillOurs()) return undefined;
  const tracker = await trackerFrom(point, options);
  return options.stillOurs() ? tracker : undefined;
}

/** `orphaned`, false when unknown (the look-up failed): the grace is waited then. */
async function isOrphaned(options: ReleaseWait): Promise<boolean> {
  if (!options.orphaned) return false;
  try {
    return await options.orphaned();
  } catch (err) {
    options.logger.warn({ ...options.context, err: errorMessage(err) }, 'cannot tell who held the partition');
    return false;
  }
}

/** A commit to make for one partition; `release` when it gives the partition up. */
export interface TrackerCommit {
  key: string;
  topic: string;
  partition: number;
  commit: PartitionCommit;
  release: boolean;
  tracker: PartitionOffsets;
}

/**
 * The offset trackers of one consumer, keyed `<topic>:<partition>`: those of the partitions it
 * owns, and those of the partitions it gave up and is still finishing (retiring, see above).
 */
export class PartitionTrackers {
  private readonly owned = new Map<string, PartitionOffsets>();
  private readonly retiring = new Map<string, { tracker: PartitionOffsets; sinceMs: number }>();
  /**
   * Retired past the grace without a release: no longer committed here, but kept in case the
   * partition comes back to this process (see `set`).
   */
  private readonly former = new Map<string, PartitionOffsets>();

  /** `graceMs`: how long a retiring partition is committed here (and a successor waits for it). */
  constructor(readonly graceMs: number) {}

  get(key: string): PartitionOffsets | undefined {
    return this.owned.get(key);
  }

  has(key: string): boolean {
    return this.owned.has(key);
  }

  /**
   * The tracker of a partition taken over: from now on only it commits there. When the partition
   * comes back to this process (a rejoin under a new member id, as after kafkajs restarted the
   * consumer), it adopts this process's earlier tracker: work done here is not done again, work in
   * flight here is not started again (PartitionOffsets.adopt).
   */
  set(key: string, tracker: PartitionOffsets): void {
    const earlier = this.retiring.get(key)?.tracker ?? this.former.get(key);
    if (earlier) tracker.adopt(earlier);
    this.retiring.delete(key);
    this.former.delete(key);
    this.owned.set(key, tracker);
  }

  /**
   * The group's new assignment. The trackers of partitions still ours are kept when this member
   * stayed in the group (`sameMember`: nobody else can have had them since); every other owned
   * partition retires. Returns the keys to take over (read their committed point).
   */
  assign(keys: readonly string[], sameMember: boolean, nowMs: number): string[] {
    const assigned = new Set(keys);
    for (const [key, tracker] of [...this.owned]) {
      if (sameMember && assigned.has(key)) continue;
      this.owned.delete(key);
      this.retiring.set(key, { tracker, sinceMs: nowMs });
    }
    return keys.filter((key) => !this.owned.has(key));
  }

  /** The keys of the partitions given up and still being finished here. */
  retiringKeys(): string[] {
    return [...this.retiring.keys()];
  }

  /** Every owned partition retires (a graceful stop). */
  retireAll(nowMs: number): void {
    this.assign([], false, nowMs);
  }

  /**
   * What to commit now. A retiring partition is released once nothing of it is in flight; it is
   * forgotten once released, or after the grace (its successor no longer waits for it).
   */
  commits(nowMs: number): TrackerCommit[] {
    const out: TrackerCommit[] = [];
    for (const [key, tracker] of this.owned) {
      const commit = tracker.pendingCommit();
      if (commit) out.push({ ...partitionOf(key), key, commit, release: false, tracker });
    }
    for (const [key, { tracker, sinceMs }] of [...this.retiring]) {
      const release = tracker.running === 0 ? tracker.releaseCommit() : undefined;
      const commit = release ?? tracker.pendingCommit();
      if (nowMs - sinceMs > this.graceMs) {
        this.retiring.delete(key);
        this.former.set(key, tracker);
      } else if (!commit && tracker.running === 0) this.retiring.delete(key);
      else if (commit)
        out.push({ ...partitionOf(key), key, commit, release: release !== undefined, tracker });
    }
    return out;
  }

  /**
   * Whether this member still works on the partition `tracker` (or the tracker that adopted it)
   * is for: owned, or retiring (finishing its in-flight work for the handover). Not once retired
   * past the grace: its successor handles what it had not started.
   */
  holds(key: string, tracker: PartitionOffsets): boolean {
    const latest = tracker.latest();
    return this.owned.get(key) === latest || this.retiring.get(key)?.tracker === latest;
  }

  /** After `commits` were accepted by the broker. */
  committed(commits: readonly TrackerCommit[]): void {
    for (const c of commits) {
      c.tracker.markCommitted(c.commit);
      if (c.release && this.retiring.get(c.key)?.tracker === c.tracker) this.retiring.delete(c.key);
    }
  }

  /** The partitions held, those with the most work in flight first: the ones kept if some must go. */
  busiestFirst<P extends { topic: string; partition: number }>(held: readonly P[]): P[] {
    const load = (p: P) => this.owned.get(`${p.topic}:${p.partition}`)?.inFlight ?? 0;
    return [...held].sort((a, b) => load(b) - load(a));
  }
}

export function partitionOf(key: string): { topic: string; partition: number } {
  const i = key.lastIndexOf(':');
  return { topic: key.slice(0, i), partition: Number(key.slice(i + 1)) };
}
