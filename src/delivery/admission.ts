/**
 * Who gets the worker's capacity: the admission policy of the dispatcher, as a pure function.
 *
 * A destination is *slow* while its requests take longer than `slowRunMs` (the moving average of
 * finished requests, or the age of the oldest still in flight: a destination that never answers
 * has no average yet). The hand-off to Kafka after a task's requests is not counted: a worker
 * whose own event loop or broker is slow would otherwise find every destination slow. Slow destinations may together hold at most `slowShare` of the worker's
 * tasks, each an equal part of that budget, and never queue: a task that cannot start at once is
 * parked (handed to the first delay topic without an attempt). Fast destinations keep their own
 * concurrency and queue, but for nothing to queue behind a request that looks hung (`isStalled`). So any number of dead endpoints costs only the slow budget, and healthy
 * destinations always keep the rest.
 */
export interface AdmissionLimits {
  /** Requests in flight to one destination at once. */
  maxActivePerDestination: number;
  /** Tasks a fast destination may have waiting before deferring is considered. */
  maxQueuedPerDestination: number;
  /** A full queue of a fast destination defers only when draining it would take longer than this. */
  deferAfterWaitMs: number;
  /** Tasks in flight per consumer of the worker (HOOKLINE_WORKER_CONCURRENCY). */
  maxTotal: number;
  /** Share of `maxTotal` that slow destinations may hold together, 0–1. */
  slowShare: number;
  /** A destination whose runs take longer than this is slow. */
  slowRunMs: number;
}

/** One destination's lane, as the policy sees it. */
export interface LaneLoad {
  active: number;
  queued: number;
  /** Moving average of finished runs; undefined before the first one finished. */
  avgRunMs: number | undefined;
  /** Age of the oldest run in flight (0 when none). */
  oldestRunAgeMs: number;
  /** An earlier task of the same user to the same destination is in flight (order is kept). */
  sameUserActive: boolean;
  /** The destination's `maxRequestsPerSecond`, when it has one. */
  ratePerSecond?: number;
  /** A task may start under that limit now (always true without one), whatever the lane's health. */
  tokenReady: boolean;
}

/** All lanes together. */
export interface PoolLoad {
  /** Runs in flight in slow lanes. */
  slowActive: number;
  /** Slow lanes, this one included when it is slow. */
  slowLanes: number;
}

export type Admission = 'start' | 'queue' | 'defer';

export function isSlow(
  lane: Pick<LaneLoad, 'avgRunMs' | 'oldestRunAgeMs'>,
  limits: AdmissionLimits,
): boolean {
  return Math.max(lane.avgRunMs ?? 0, lane.oldestRunAgeMs) > limits.slowRunMs;
}

/** A request in flight this much longer than the lane's average run is a sign it stopped answering. */
const STALL_FACTOR = 4;
/** ... but never before this: a healthy lane's outlier (a pause of this process) is not a stall. */
export const STALL_FLOOR_MS = 500;

/**
 * A destination that may have stopped answering, before it counts as slow (isSlow): its oldest
 * request in flight has taken 4× its average run (at least 0.5 s; at most the wait budget,
 * `deferAfterWaitMs`, the first retry delay). Nothing queues behind it then: what cannot start
 * is deferred. Otherwise, in the first seconds of a hang, its queue would hold up to its bound of
 * tasks, and with them room in the consumer's in-flight bound (and the events they came from,
 * see routing/first-attempts.ts) that other destinations need.
 */
export function isStalled(
  lane: Pick<LaneLoad, 'avgRunMs' | 'oldestRunAgeMs'>,
  limits: AdmissionLimits,
): boolean {
  const afterMs = Math.min(
    limits.deferAfterWaitMs,
    Math.max(STALL_FLOOR_MS, STALL_FACTOR * (lane.avgRunMs ?? 0)),
  );
  return lane.oldestRunAgeMs > afterMs;
}

/** The slow budget, and one slow lane's part of it (at least 1, at most its own concurrency). */
export function slowCaps(limits: AdmissionLimits, slowLanes: number): { budget: number; perLane: number } {
  const budget = Math.max(1, Math.floor(limits.maxTotal * limits.slowShare));
  const perLane = Math.min(
    limits.maxActivePerDestination,
    Math.max(1, Math.floor(budget / Math.max(1, slowLanes))),
  );
  return { budget, perLane };
}

/** What to do with a new task for this lane. */
export function admit(lane: LaneLoad, pool: PoolLoad, limits: AdmissionLimits): Admission {
  if (isSlow(lane, limits)) {
    const { budget, perLane } = slowCaps(limits, pool.slowLanes);
    const room = lane.active < perLane && pool.slowActive < budget;
    // A rate limit holds here too: a receiver that slows down is the one it protects most.
    return room && !lane.sameUserActive && lane.tokenReady ? 'start' : 'defer';
  }
  if (isStalled(lane, limits)) {
    const canStart = lane.active < limits.maxActivePerDestination && !lane.sameUserActive && lane.tokenReady;
    return canStart ? 'start' : 'defer';
  }
  if (lane.ratePerSecond !== undefined) {
    // Rate-limited: waits its turn in the lane, as long as the wait stays under the first retry
    // delay and the queue bound; beyond that it is parked (never dropped) in the delay topics.
    if (lane.active < limits.maxActivePerDestination && !lane.sameUserActive && lane.tokenReady)
      return 'start';
    const expectedWaitMs = ((lane.queued + 1) / lane.ratePerSecond) * 1_000;
    return lane.queued < limits.maxQueuedPerDestination && expectedWaitMs <= limits.deferAfterWaitMs
      ? 'queue'
      : 'defer';
  }
  if (lane.active < limits.maxActivePerDestination && !lane.sameUserActive) return 'start';
  if (lane.queued < limits.maxQueuedPerDestination) return 'queue';
  // A full queue: a burst to a destination that answers quickly still queues (the consumer's
  // in-flight bound caps it); one that would take too long to drain defers.
  const perRunMs = Math.max(lane.avgRunMs ?? 0, lane.oldestRunAgeMs);
  const expectedWaitMs = ((lane.queued + 1) / limits.maxActivePerDestination) * perRunMs;
  return expectedWaitMs > limits.deferAfterWaitMs ? 'defer' : 'queue';
}

/** Messages a consumer feeding the lanes may hold with no request in flight, per destination slot. */
export const HELD_FLOOR_PER_DESTINATION_SLOT = 2;
/** ... and per request in flight (its own, and enough for the next ones of its lane to start at once). */
export const HELD_PER_ACTIVE = 3;

/**
 * How many messages a consumer whose messages become tasks in these lanes may hold now
 * (HoldBack): enough to keep every request in flight followed by the next, plus the delivered
 * tasks handing on (their attempt records on their way to Kafka) and the tasks waiting in a lane
 * that has room (for a rate limit's token, or for an earlier task of the same user: one user's
 * burst does not take the others' room), at most `maxInFlight` (HOOKLINE_WORKER_CONCURRENCY).
 * Only tasks queued behind a lane's full concurrency are not counted. A held message waits
 * in memory, with its event, its record and the promises of its path. A destination that answers
 * at once, fed a backlog, would otherwise hold the whole bound queued behind its 50 requests
 * without delivering any sooner, long enough for the garbage collector to move all of it to the
 * old generation: draining a backlog to one such destination, a bound of 250 instead of 1,000
 * took 59 instead of 85–95 µs of CPU per event (bench/results/2026-11-27-three-rounds.md). Many destinations in flight at
 * once, slow ones included, still get the whole bound; dead ones (isSlow) add to it as they hold
 * requests, so healthy destinations keep their room.
 */
export function heldBound(
  load: { active: number; handingOn: number; waitingWithRoom: number },
  limits: { maxInFlight: number; maxActivePerDestination: number },
): number {
  const floor = HELD_FLOOR_PER_DESTINATION_SLOT * limits.maxActivePerDestination;
  const needed = floor + HELD_PER_ACTIVE * load.active + load.handingOn + load.waitingWithRoom;
  return Math.min(limits.maxInFlight, needed);
}
