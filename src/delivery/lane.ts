import type { DeliveryTask } from '../records/delivery-task';
import type { LaneLoad } from './admission';
import { KeyedQueue, type KeyedNode } from './keyed-queue';
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

/** A task waiting in a lane, with how to settle its `submit`; `key`: its user (DeliveryTask.userKey). */
export interface Queued extends SubmitOptions, KeyedNode<Queued> {
  task: DeliveryTask;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** A task's Queued item, whether it waits or starts at once. */
export function queuedItem(
  task: DeliveryTask,
  options: SubmitOptions,
  resolve: () => void,
  reject: (err: unknown) => void,
): Queued {
  // Written out, not `{ ...options, task, … }`: V8 adds properties to a spread copy slowly
  // (~1 µs each here), once per task.
  return {
    onStart: options.onStart,
    held: options.held,
    source: options.source,
    task,
    key: task.userKey,
    resolve,
    reject,
    seq: 0, // KeyedQueue's links, set when it is queued
    prev: undefined,
    next: undefined,
    nextOfKey: undefined,
  };
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
  /**
   * Tasks back from a delay topic (retries, deferred tasks): served before first attempts. In
   * each queue, a user's tasks wait while it is in `activeKeys` (keyBusy, keyFree).
   */
  retries: KeyedQueue<Queued>;
  firsts: KeyedQueue<Queued>;
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
  const activeKeys = new Map<string, number>();
  return {
    active: 0,
    activeKeys,
    activeSince: new Set(),
    retries: new KeyedQueue(activeKeys),
    firsts: new KeyedQueue(activeKeys),
    avgRunMs: undefined,
    bucket: undefined,
    tokenTimer: undefined,
    waitingWithRoom: 0,
  };
}

/** Tasks waiting in the lane. */
export function queuedIn(lane: Lane): number {
  return lane.retries.size + lane.firsts.size;
}

/** Whether a task of `key` waits in the lane. */
export function hasQueued(lane: Lane, key: string): boolean {
  return lane.retries.has(key) || lane.firsts.has(key);
}

/** A run of `key` begins: the user's next tasks wait for it to end. */
export function keyStarted(lane: Lane, key: string): void {
  const n = lane.activeKeys.get(key);
  lane.activeKeys.set(key, (n ?? 0) + 1);
  if (n !== undefined) return;
  lane.retries.keyBusy(key);
  lane.firsts.keyBusy(key);
}

/** A run of `key` ended (or never began): the user's next task may start once none is left. */
export function keyEnded(lane: Lane, key: string): void {
  const n = (lane.activeKeys.get(key) ?? 1) - 1;
  if (n > 0) return void lane.activeKeys.set(key, n);
  lane.activeKeys.delete(key);
  keyFree(lane, key);
}

/** `key` has no run (it ended, or a task taken to start did not): its next task may start. */
export function keyFree(lane: Lane, key: string): void {
  lane.retries.keyFree(key);
  lane.firsts.keyFree(key);
}

/** The lane's figures the admission policy decides on (admission.ts), for a task of `userKey`. */
export function laneLoad(lane: Lane, userKey: string | undefined, nowMs: number): LaneLoad {
  return {
    active: lane.active,
    queued: queuedIn(lane),
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
    queuedIn(lane) === 0 &&
    !lane.tokenTimer
  );
}
