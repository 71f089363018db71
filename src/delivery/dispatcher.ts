import type { Clock } from '../core/clock';
import type { DeliveryTask } from '../records/delivery-task';

export interface DispatcherOptions {
  /** Requests in flight to one destination at once. */
  maxActivePerDestination: number;
  /** Tasks a destination may have waiting before deferring is considered. */
  maxQueuedPerDestination: number;
  /**
   * A full queue defers new tasks only when the wait it implies is longer than this (the first
   * retry delay): a fast destination with a burst queues; a slow or stuck one defers.
   */
  deferAfterWaitMs: number;
  /** Attempts a task and hands it on (done, retry, dead letter). Resolves when that is durable. */
  run: (task: DeliveryTask) => Promise<void>;
  /** Hands a task to the first delay topic without attempting it (backpressure). */
  defer: (task: DeliveryTask) => Promise<void>;
  clock: Clock;
}

interface Queued {
  task: DeliveryTask;
  onStart: (() => void) | undefined;
  key: string;
  resolve: () => void;
  reject: (err: unknown) => void;
}

interface Lane {
  active: number;
  activeKeys: Map<string, number>;
  /** Start times of the runs in flight, oldest first (insertion order). */
  activeSince: Set<{ atMs: number }>;
  queue: Queued[];
  /** Moving average of how long a run takes, once one finished. */
  avgRunMs: number | undefined;
}

/**
 * Isolates destinations from each other. Each destination has its own lane: at most N requests
 * in flight and per-user order (a task waits while an earlier task of the same user to the same
 * destination is in flight). When a lane's queue is full and draining it would take longer than
 * the first retry delay (its requests are slow, or have stopped answering), further tasks are
 * deferred to the first delay topic, so a stuck destination neither holds memory nor holds back
 * the others. A fast destination's burst simply queues: the consumer's in-flight bound caps it.
 */
export class Dispatcher {
  private readonly lanes = new Map<string, Lane>();

  constructor(private readonly options: DispatcherOptions) {}

  /**
   * Resolves when the task was attempted and handed on, or deferred. `onStart` runs when the
   * attempt begins (after any wait in the lane), not when it is deferred.
   */
  submit(task: DeliveryTask, onStart?: () => void): Promise<void> {
    let lane = this.lanes.get(task.destinationId);
    if (!lane) {
      lane = { active: 0, activeKeys: new Map(), activeSince: new Set(), queue: [], avgRunMs: undefined };
      this.lanes.set(task.destinationId, lane);
    }
    if (
      lane.queue.length >= this.options.maxQueuedPerDestination &&
      !this.canStart(lane, task.userKey) &&
      this.expectedWaitMs(lane) > this.options.deferAfterWaitMs
    ) {
      return this.options.defer(task);
    }
    return new Promise<void>((resolve, reject) => {
      lane.queue.push({ task, onStart, key: task.userKey, resolve, reject });
      this.pump(task.destinationId, lane);
    });
  }

  /** Tasks queued or in flight, per destination (for metrics and tests). */
  load(destinationId: string): { active: number; queued: number } {
    const lane = this.lanes.get(destinationId);
    return { active: lane?.active ?? 0, queued: lane?.queue.length ?? 0 };
  }

  /** How long the last queued task would wait: queue depth ÷ concurrency × the slower of the
   * average run and the age of the oldest run in flight (a stuck destination has no average yet). */
  private expectedWaitMs(lane: Lane): number {
    const oldest = lane.activeSince.values().next().value as { atMs: number } | undefined;
    const oldestAgeMs = oldest ? this.options.clock.now() - oldest.atMs : 0;
    const perRunMs = Math.max(lane.avgRunMs ?? 0, oldestAgeMs);
    return (lane.queue.length / this.options.maxActivePerDestination) * perRunMs;
  }

  private canStart(lane: Lane, key: string): boolean {
    return lane.active < this.options.maxActivePerDestination && !lane.activeKeys.has(key);
  }

  private pump(destinationId: string, lane: Lane): void {
    while (lane.active < this.options.maxActivePerDestination) {
      const index = lane.queue.findIndex((q) => !lane.activeKeys.has(q.key));
      if (index === -1) break;
      const [next] = lane.queue.splice(index, 1);
      this.start(destinationId, lane, next!);
    }
    if (lane.active === 0 && lane.queue.length === 0) this.lanes.delete(destinationId);
  }

  private start(destinationId: string, lane: Lane, item: Queued): void {
    lane.active++;
    lane.activeKeys.set(item.key, (lane.activeKeys.get(item.key) ?? 0) + 1);
    const since = { atMs: this.options.clock.now() };
    lane.activeSince.add(since);
    item.onStart?.();
    this.options
      .run(item.task)
      .then(item.resolve, item.reject)
      .finally(() => {
        const runMs = this.options.clock.now() - since.atMs;
        lane.avgRunMs = lane.avgRunMs === undefined ? runMs : lane.avgRunMs * 0.8 + runMs * 0.2;
        lane.activeSince.delete(since);
        lane.active--;
        const n = lane.activeKeys.get(item.key)! - 1;
        if (n === 0) lane.activeKeys.delete(item.key);
        else lane.activeKeys.set(item.key, n);
        this.pump(destinationId, lane);
      });
  }
}
