import type { DeliveryTask } from '../records/delivery-task';
import type { LaneLoad } from './admission';
import { TokenBucket, burstFor } from './rate-limit';

/** One destination's lane of the Dispatcher: what runs, what waits, how its requests fare. */

/** How a task's attempt may start. */
export interface SubmitOptions {
  /** Runs when the attempt begins (after any wait in the lane), not when the task is deferred. */
  onStart?: () => void;
  /**
   * Whether the task's consumer still holds its partition (ConsumedMessage.held). Checked when
   * the attempt would begin: once false, the task is not attempted and `submit` rejects with
   * WorkNotHeldError (whoever holds the partition delivers it).
   */
  held?: () => boolean;
  /** Where the task was read (`deliveredFrom`), recorded with its attempt once delivered. */
  source?: string;
}

/** A task waiting in a lane, with how to settle its `submit`. */
export interface Queued extends SubmitOptions {
  task: DeliveryTask;
  key: string;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export interface Lane {
  /**
   * Runs holding one of the lane's slots: those whose requests are in flight, and those handing
   * on a task that was not delivered (see `start`).
   */
  active: number;
  /** Users with a run in the lane, requests or hand-off: their next task waits for it to end. */
  activeKeys: Map<string, number>;
  /** Start times of the runs whose requests are in flight, oldest first (insertion order). */
  activeSince: Set<{ atMs: number }>;
  /** Tasks back from a delay topic (retries, deferred tasks): served before first attempts. */
  retries: Queued[];
  firsts: Queued[];
  /**
   * Moving average of how long a run's requests take, once one finished. The hand-off after them
   * (waiting for Kafka, on an event loop this process may be saturating) is not the destination's.
   */
  avgRunMs: number | undefined;
  /** The destination's rate limit, when it has one. */
  bucket: TokenBucket | undefined;
  /** Pumps the lane again when its next token is due. */
  tokenTimer: NodeJS.Timeout | undefined;
  /** Its tasks counted as waiting with room (Dispatcher.recount): its queue while it is below its concurrency. */
  waitingWithRoom: number;
}

export function newLane(): Lane {
  return {
    active: 0,
    activeKeys: new Map(),
    activeSince: new Set(),
    retries: [],
    firsts: [],
    avgRunMs: undefined,
    bucket: undefined,
    tokenTimer: undefined,
    waitingWithRoom: 0,
  };
}

/** Takes the item at `i` out of the queue: at the head (nearly always) in O(1), as a FIFO. */
export function removeAt(queue: Queued[], i: number): void {
  if (i === 0) queue.shift();
  else queue.splice(i, 1);
}

/** The lane's figures the admission policy decides on (admission.ts), for a task of `userKey`. */
export function laneLoad(lane: Lane, userKey: string | undefined, nowMs: number): LaneLoad {
  return {
    active: lane.active,
    queued: lane.retries.length + lane.firsts.length,
    avgRunMs: lane.avgRunMs,
    oldestRunAgeMs: oldestRunAgeMs(lane, nowMs),
    sameUserActive: userKey !== undefined && lane.activeKeys.has(userKey),
    ...(lane.bucket && { ratePerSecond: lane.bucket.ratePerSecond }),
    tokenReady: lane.bucket?.ready(nowMs) ?? true,
  };
}

/** How long the lane's oldest request in flight has been running (0 when none is). */
export function oldestRunAgeMs(lane: Lane, nowMs: number): number {
  const oldest = lane.activeSince.values().next().value as { atMs: number } | undefined;
  return oldest ? nowMs - oldest.atMs : 0;
}

/** Follows changes of the destination's rate limit (a new limit starts with a fresh bucket). */
export function followRate(lane: Lane, ratePerSecond: number | undefined, nowMs: number): void {
  if (ratePerSecond === lane.bucket?.ratePerSecond) return;
  lane.bucket =
    ratePerSecond === undefined ? undefined : new TokenBucket(ratePerSecond, burstFor(ratePerSecond), nowMs);
}

/** Nothing runs, hands on or waits in the lane, and no token timer will pump it: it may go. */
export function isIdle(lane: Lane): boolean {
  return (
    lane.active === 0 &&
    lane.activeKeys.size === 0 && // runs still handing on (their slots freed) keep the lane
    lane.retries.length === 0 &&
    lane.firsts.length === 0 &&
    !lane.tokenTimer
  );
}
