import { WorkNotHeldError } from '../core/errors';
import type { ConsumedMessage } from '../kafka/consumer';
import type { DeliveryTask } from '../records/delivery-task';

/**
 * This process's delivery lanes, as the router uses them (wired by the composition root when a
 * process runs both roles).
 */
export interface LocalDelivery {
  /**
   * Attempts a task read from `consumed`. Resolves once it was delivered or durably handed on (a
   * delay or dead-letter topic); rejects with WorkNotHeldError when it was not started because
   * the event's partition is no longer held.
   */
  submit(task: DeliveryTask, consumed: ConsumedMessage): Promise<void>;
  /**
   * For a partition taken over from an owner that did not release it (it crashed): per offset,
   * the destinations that owner delivered the event to without committing it.
   */
  deliveredBefore(topic: string, partition: number): Promise<Map<number, string[]>>;
}

/**
 * First attempts straight from `hookline.events`: an event's tasks go to the lanes of this
 * process and its offset is done once every one of them is delivered or durably handed on, the
 * commit-after-success rule of the worker, without the write to and read from
 * `hookline.deliveries`. A task that fails (Kafka away while it is handed to a delay topic) is
 * tried again alone when the consumer retries the message; the others are not sent twice. On a
 * partition taken over unreleased, destinations its previous owner reached are skipped.
 */
export class FirstAttempts {
  /** Per message whose earlier try failed: its tasks not done yet. */
  private readonly unfinished = new WeakMap<ConsumedMessage, DeliveryTask[]>();
  /** Per partition taken over unreleased: per offset, the destinations reached before. */
  private readonly reached = new Map<string, Map<number, string[]>>();

  constructor(private readonly local: LocalDelivery) {}

  /**
   * The router consumer's `doneBefore`: reads what the previous owner delivered. No offset is
   * done as a whole (an event is, only once every destination is); `run` skips what was reached.
   */
  readonly takeOver = async (topic: string, partition: number): Promise<number[]> => {
    const key = `${topic}:${partition}`;
    this.reached.delete(key);
    const found = await this.local.deliveredBefore(topic, partition);
    if (found.size > 0) this.reached.set(key, found);
    return [];
  };

  /** What is left of a message whose earlier try failed, if anything. */
  leftOf(consumed: ConsumedMessage): DeliveryTask[] | undefined {
    return this.unfinished.get(consumed);
  }

  /**
   * Submits the tasks (in order: the lanes keep each user's order from here, so the next event
   * of the same user may be routed at once) and resolves when all are done. Rejects with
   * WorkNotHeldError when one was declined (the whole event is handled again, here or by the
   * partition's next owner), else with the first failure, keeping the failed tasks for the retry.
   */
  async run(consumed: ConsumedMessage, routed: DeliveryTask[]): Promise<void> {
    const tasks = this.notReached(consumed, routed);
    if (tasks.length === 1) return this.runOne(consumed, tasks[0]!);
    const runs = tasks.map((task) => this.local.submit(task, consumed));
    consumed.nextMayStart?.();
    const results = await Promise.allSettled(runs);
    const failed = tasks.filter((_, i) => results[i]!.status === 'rejected');
    if (failed.length === 0) {
      this.unfinished.delete(consumed);
      return;
    }
    const reasons = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    if (reasons.some((reason) => reason instanceof WorkNotHeldError)) {
      this.unfinished.delete(consumed);
      throw new WorkNotHeldError();
    }
    this.unfinished.set(consumed, failed);
    throw reasons[0];
  }

  /**
   * `run` of an event with one task left, the common case (one destination per event), without
   * Promise.allSettled and its result objects: ~0.5 µs less per event.
   */
  private async runOne(consumed: ConsumedMessage, task: DeliveryTask): Promise<void> {
    const done = this.local.submit(task, consumed);
    consumed.nextMayStart?.();
    try {
      await done;
    } catch (err) {
      if (err instanceof WorkNotHeldError) this.unfinished.delete(consumed);
      else this.unfinished.set(consumed, [task]);
      throw err;
    }
    this.unfinished.delete(consumed);
  }

  /** The tasks, less those whose destination the partition's previous owner delivered the event to. */
  private notReached(consumed: ConsumedMessage, tasks: DeliveryTask[]): DeliveryTask[] {
    if (this.reached.size === 0) return tasks; // no partition taken over unreleased: nothing to skip
    const partition = this.reached.get(`${consumed.topic}:${consumed.partition}`);
    const offset = Number(consumed.message.offset);
    const reached = partition?.get(offset);
    if (!partition || !reached) return tasks;
    partition.delete(offset);
    return tasks.filter((task) => !reached.includes(task.destinationId));
  }
}
