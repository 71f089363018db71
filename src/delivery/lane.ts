import type { DeliveryTask } from '../records/delivery-task';
import type { TokenBucket } from './rate-limit';

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
