import type { DeliveryTask } from './task';

export interface DispatcherOptions {
  /** Requests in flight to one destination at once. */
  maxActivePerDestination: number;
  /** Tasks waiting for one destination; beyond this, new tasks are deferred instead of queued. */
  maxQueuedPerDestination: number;
  /** Attempts a task and hands it on (done, retry, dead letter). Resolves when that is durable. */
  run: (task: DeliveryTask) => Promise<void>;
  /** Hands a task to the first delay topic without attempting it (backpressure). */
  defer: (task: DeliveryTask) => Promise<void>;
}

interface Queued {
  task: DeliveryTask;
  key: string;
  resolve: () => void;
  reject: (err: unknown) => void;
}

interface Lane {
  active: number;
  activeKeys: Map<string, number>;
  queue: Queued[];
}

/**
 * Isolates destinations from each other. Each destination has its own lane: at most N requests
 * in flight, a bounded queue, and per-user order (a task waits while an earlier task of the
 * same user to the same destination is in flight). A destination that is slow or never answers
 * fills only its own lane; once its queue is full, its further tasks are deferred to the delay
 * topic, so memory stays bounded and other destinations never wait behind it.
 */
export class Dispatcher {
  private readonly lanes = new Map<string, Lane>();

  constructor(private readonly options: DispatcherOptions) {}

  /** Resolves when the task was attempted and handed on, or deferred. */
  submit(task: DeliveryTask): Promise<void> {
    let lane = this.lanes.get(task.destinationId);
    if (!lane) this.lanes.set(task.destinationId, (lane = { active: 0, activeKeys: new Map(), queue: [] }));
    if (lane.queue.length >= this.options.maxQueuedPerDestination && !this.canStart(lane, task.userKey)) {
      return this.options.defer(task);
    }
    return new Promise<void>((resolve, reject) => {
      lane.queue.push({ task, key: task.userKey, resolve, reject });
      this.pump(task.destinationId, lane);
    });
  }

  /** Tasks queued or in flight, per destination (for metrics and tests). */
  load(destinationId: string): { active: number; queued: number } {
    const lane = this.lanes.get(destinationId);
    return { active: lane?.active ?? 0, queued: lane?.queue.length ?? 0 };
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
    this.options
      .run(item.task)
      .then(item.resolve, item.reject)
      .finally(() => {
        lane.active--;
        const n = lane.activeKeys.get(item.key)! - 1;
        if (n === 0) lane.activeKeys.delete(item.key);
        else lane.activeKeys.set(item.key, n);
        this.pump(destinationId, lane);
      });
  }
}
