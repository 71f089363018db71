import type { Clock } from '../core/clock';
import { WorkNotHeldError } from '../core/errors';
import type { HoldBack } from '../kafka/consumer-options';
import type { DeliveryTask } from '../records/delivery-task';
import {
  admit,
  heldBound,
  isSlow,
  isStalled,
  slowCaps,
  type AdmissionLimits,
  type PoolLoad,
} from './admission';
import type { KeyedQueue } from './keyed-queue';
import {
  followRate,
  hasQueued,
  isIdle,
  keyEnded,
  keyFree,
  keyStarted,
  laneLoad,
  newLane,
  oldestRunAgeMs,
  queuedIn,
  queuedItem,
  type Lane,
  type Queued,
  type SubmitOptions,
} from './lane';

export type { SubmitOptions };

export interface DispatcherOptions extends AdmissionLimits {
  /**
   * Attempts a task and hands it on (done, retry, dead letter). Resolves when that is durable;
   * calls `requestsDone` once its requests to the destination are over (before the hand-off),
   * saying whether the task was delivered. `source`: where the task was read (SubmitOptions).
   */
  run: (task: DeliveryTask, requestsDone: RequestsDone, source?: string) => Promise<void>;
  /** Hands a task to the first delay topic without attempting it (backpressure). */
  defer: (task: DeliveryTask) => Promise<void>;
  /** A destination's `maxRequestsPerSecond`, if it has one. */
  rateOf?: (destinationId: string) => number | undefined;
  clock: Clock;
}

/** Called once a run's requests are over, before its hand-off; `delivered`: one URL took it. */
export type RequestsDone = (delivered: boolean) => void;

/** How often the pool's slow-lane figures are recomputed from every lane. */
const POOL_REFRESH_MS = 100;

interface LaneHealth {
  slow: boolean;
  stalled: boolean;
}

/**
 * Isolates destinations from each other. Each destination has its own lane: at most N requests
 * in flight and per-user order (a task waits while an earlier task of the same user to the same
 * destination is in flight). Who may start, wait or be deferred to the first delay topic is the
 * admission policy (admission.ts): slow destinations share a bounded part of the capacity and
 * never queue, so dead endpoints, however many, cannot starve healthy ones. Within a lane,
 * retries go before first attempts, so a retry that is due does not wait behind new work.
 */
export class Dispatcher implements HoldBack {
  private readonly lanes = new Map<string, Lane>();
  private pool: PoolLoad & { atMs: number } = { slowActive: 0, slowLanes: 0, atMs: -Infinity };
  /** Slots taken in every lane (Lane.active), and delivered tasks handing on without one. */
  private active = 0;
  private handingOn = 0;
  /** Tasks waiting in lanes below their concurrency: for a token or the same user (heldBound). */
  private waitingWithRoom = 0;

  constructor(private readonly options: DispatcherOptions) {}

  /** Resolves when the task was attempted and handed on, or deferred. */
  submit(task: DeliveryTask, options: SubmitOptions = {}): Promise<void> {
    let lane = this.lanes.get(task.destinationId);
    if (!lane) this.lanes.set(task.destinationId, (lane = newLane()));
    const nowMs = this.options.clock.now();
    followRate(lane, this.options.rateOf?.(task.destinationId), nowMs);
    const admission = admit(laneLoad(lane, task.userKey, nowMs), this.poolLoad(), this.options);
    if (admission === 'defer') {
      this.dropIfIdle(task.destinationId, lane);
      return this.options.defer(task);
    }
    return new Promise<void>((resolve, reject) => {
      const item = queuedItem(task, options, resolve, reject);
      // A task of the same user may still wait, for a token whose timer has not fired: it goes first.
      const queued = admission === 'start' && hasQueued(lane, task.userKey);
      if (admission === 'start' && !queued) this.start(task.destinationId, lane, item);
      else (task.dueAtMs !== undefined ? lane.retries : lane.firsts).push(item);
      if (queued) this.pump(task.destinationId, lane);
      this.recount(lane);
    });
  }

  /**
   * HoldBack, for the consumers whose messages become tasks here: how many messages they may hold
   * now (admission.ts, heldBound).
   */
  limit(maxInFlight: number): number {
    const { maxActivePerDestination } = this.options;
    const load = { active: this.active, handingOn: this.handingOn, waitingWithRoom: this.waitingWithRoom };
    return heldBound(load, { maxInFlight, maxActivePerDestination });
  }

  /** Tasks queued or in flight, per destination (for metrics and tests). */
  load(destinationId: string): { active: number; queued: number } {
    const lane = this.lanes.get(destinationId);
    return { active: lane?.active ?? 0, queued: lane ? queuedIn(lane) : 0 };
  }

  /**
   * Re-checks every lane: the queue of a lane that has turned slow is deferred at once instead of
   * waiting for its next finished run. The worker calls this on a timer.
   */
  sweep(): void {
    this.pool.atMs = -Infinity;
    for (const [destinationId, lane] of [...this.lanes]) {
      if (queuedIn(lane) > 0) this.pump(destinationId, lane);
    }
  }

  /** Whether a rate-limited lane has a token now; if not, pumps it again when it will. */
  private tokenReady(destinationId: string, lane: Lane): boolean {
    if (!lane.bucket) return true;
    const nowMs = this.options.clock.now();
    if (lane.bucket.ready(nowMs)) return true;
    if (!lane.tokenTimer) {
      lane.tokenTimer = setTimeout(
        () => {
          lane.tokenTimer = undefined;
          this.pump(destinationId, lane);
        },
        lane.bucket.nextTokenAtMs(nowMs) - nowMs,
      ).unref();
    }
    return false;
  }

  private poolLoad(): PoolLoad {
    const nowMs = this.options.clock.now();
    if (nowMs - this.pool.atMs >= POOL_REFRESH_MS) {
      let slowActive = 0;
      let slowLanes = 0;
      for (const lane of this.lanes.values()) {
        if (!isSlow(laneLoad(lane, undefined, nowMs), this.options)) continue;
        slowLanes++;
        slowActive += lane.active;
      }
      this.pool = { slowActive, slowLanes, atMs: nowMs };
    }
    return this.pool;
  }

  /**
   * Starts what may start, in order (retries first); a slow or stalled lane defers what cannot
   * start, unless `startOnly` (see `start`).
   */
  private pump(destinationId: string, lane: Lane, startOnly = false): void {
    // The lane's health is the same through one pump: starting requests changes neither its
    // average run nor its oldest request in flight.
    const health = this.health(lane);
    this.pumpQueue(destinationId, lane, lane.retries, health, startOnly);
    this.pumpQueue(destinationId, lane, lane.firsts, health, startOnly);
    this.recount(lane);
    this.dropIfIdle(destinationId, lane);
  }

  /** Follows what the lane adds to `waitingWithRoom`, after its queue or its slots changed. */
  private recount(lane: Lane): void {
    const queued = queuedIn(lane);
    const counted = lane.active < this.options.maxActivePerDestination ? queued : 0;
    this.waitingWithRoom += counted - lane.waitingWithRoom;
    lane.waitingWithRoom = counted;
  }

  /**
   * Starts the queue's tasks that may start, oldest first, never looking at one that cannot
   * (KeyedQueue): a healthy lane waits in order for its next slot or token. A slow or stalled one
   * goes through its whole queue in arrival order, deferring what cannot start (unless `startOnly`).
   */
  private pumpQueue(
    destinationId: string,
    lane: Lane,
    queue: KeyedQueue<Queued>,
    health: LaneHealth,
    startOnly: boolean,
  ): void {
    const { slow, stalled } = health;
    if ((slow || stalled) && !startOnly) return this.drainQueue(destinationId, lane, queue, slow);
    const healthy = !slow && !stalled;
    while (queue.size > 0) {
      if (healthy && lane.active >= this.options.maxActivePerDestination) break;
      if (healthy && !this.tokenReady(destinationId, lane)) break;
      // The oldest task whose user has no run; each later one would find no room or token either.
      // Every start takes a token, whatever the lane's health: a rate limit protects a receiver
      // most when it slows down or hangs.
      const item = queue.oldestReady();
      if (!item || !this.hasRoom(lane, slow) || !this.tokenReady(destinationId, lane)) break;
      queue.take(item);
      this.start(destinationId, lane, item);
    }
  }

  /**
   * A slow or stalled lane keeps no queue: each task, in arrival order, starts if it may (its
   * user has no run, the lane has room and a token), or waits in the delay topic.
   */
  private drainQueue(destinationId: string, lane: Lane, queue: KeyedQueue<Queued>, slow: boolean): void {
    for (let item = queue.oldest(); item; item = queue.oldest()) {
      const userFree = !lane.activeKeys.has(item.key);
      if (userFree && this.hasRoom(lane, slow) && this.tokenReady(destinationId, lane)) {
        queue.take(item);
        this.start(destinationId, lane, item);
      } else {
        queue.remove(item);
        this.options.defer(item.task).then(item.resolve, item.reject);
      }
    }
  }

  private health(lane: Lane): LaneHealth {
    const load = { avgRunMs: lane.avgRunMs, oldestRunAgeMs: oldestRunAgeMs(lane, this.options.clock.now()) };
    const slow = isSlow(load, this.options);
    return { slow, stalled: !slow && isStalled(load, this.options) };
  }

  private hasRoom(lane: Lane, slow: boolean): boolean {
    if (!slow) return lane.active < this.options.maxActivePerDestination;
    const pool = this.poolLoad();
    const { budget, perLane } = slowCaps(this.options, pool.slowLanes);
    return lane.active < perLane && pool.slowActive < budget;
  }

  private dropIfIdle(destinationId: string, lane: Lane): void {
    if (isIdle(lane)) {
      this.lanes.delete(destinationId);
      this.recount(lane); // to 0: its queue is empty
    }
  }

  private start(destinationId: string, lane: Lane, item: Queued): void {
    if (item.held?.() === false) {
      item.reject(new WorkNotHeldError());
      keyFree(lane, item.key); // taken from a queue, the user's next task may start instead
      return this.dropIfIdle(destinationId, lane);
    }
    // There is one: whoever starts a task checked (admit, pumpQueue) just before, and tokens only add up.
    lane.bucket?.take(this.options.clock.now());
    lane.active++;
    this.active++;
    if (this.health(lane).slow) this.pool.slowActive++;
    keyStarted(lane, item.key);
    const since = { atMs: this.options.clock.now() };
    lane.activeSince.add(since);
    let holdsSlot = true;
    let handingOn = false;
    const freeSlot = () => {
      if (!holdsSlot) return;
      holdsSlot = false;
      lane.active--;
      this.active--;
    };
    const requestsDone: RequestsDone = (delivered) => {
      if (!lane.activeSince.delete(since)) return;
      const runMs = this.options.clock.now() - since.atMs;
      lane.avgRunMs = lane.avgRunMs === undefined ? runMs : lane.avgRunMs * 0.8 + runMs * 0.2;
      // A slot is for requests to the destination. A delivered task's hand-off (its attempt
      // record, which lingers to share a produce request) need not hold one. A task that failed
      // keeps its slot until its retry or dead letter is on Kafka, and so does any task of a slow
      // lane: failing and slow destinations then start no more work than their hand-offs allow,
      // and the slow budget counts those hand-offs.
      // The pump then only starts work: the same user's next task still waits for this run's
      // hand-off, and a lane that looks stalled (as any may while this process is starved of CPU)
      // would otherwise defer it now, though it can start once that hand-off is done.
      if (delivered && !this.health(lane).slow) {
        freeSlot();
        handingOn = true;
        this.handingOn++;
        this.pump(destinationId, lane, true);
      }
    };
    item.onStart?.();
    this.options
      .run(item.task, requestsDone, item.source)
      .then(item.resolve, item.reject)
      .finally(() => {
        requestsDone(false);
        freeSlot();
        if (handingOn) this.handingOn--;
        keyEnded(lane, item.key);
        this.pump(destinationId, lane);
      });
  }
}
