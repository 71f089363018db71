import type { Clock } from '../core/clock';
import { HooklineError, errorMessage } from '../core/errors';
import type { Logger } from '../observability/logger';
import { cutBatch, type QueuedItem } from './batch-cut';
import { FlushWaiters, RoomWaiters } from './batch-waiters';
import { ClientClosedError, MessagesNotDeliveredError, QueueFullError } from './errors';
import type { Scheduler } from './scheduler';

export interface BatcherOptions<P> {
  /** Sends one batch; resolves once it is acknowledged (Kafka acks=all, or the API's 200). */
  send(batch: P[]): Promise<void>;
  /** Flush once this many calls were queued since the last flush. */
  flushAt: number;
  /** Flush once this long has passed since the last flush (while anything waits). */
  flushAfterMs: number;
  /** Calls held at most (queued + in flight); beyond it enqueue throws QueueFullError. */
  maxQueuedMessages: number;
  /** Upper bound of one batch: batchOverheadBytes + Σ (item bytes + itemOverheadBytes). */
  maxBatchBytes: number;
  /** Bytes every batch carries besides its items (an HTTP body's envelope). Default 0. */
  batchOverheadBytes?: number;
  /** Bytes each item adds besides its own (a comma between JSON items). Default 0. */
  itemOverheadBytes?: number;
  /**
   * After `afterMs` without an answer, the `flush()` callers waiting for the batch are rejected
   * with `error()` and `onError` hears it (willRetry: the batch is kept), but the batch stays in
   * flight until `send` settles: a batch whose first copy may still be written is never sent
   * again. Default: none (`send` always settles in time by itself).
   */
  ackTimeout?: { afterMs: number; error(): Error };
  clock: Clock;
  scheduler: Scheduler;
  logger: Logger;
  /** A batch failed in the background. Retriable errors keep it queued (retried at the next flush). */
  onError(err: Error, info: { messages: number; willRetry: boolean; messageIds: string[] }): void;
}

type Item<P> = QueuedItem<P>;

export type FlushReason = 'count' | 'size' | 'timer' | 'flush';

/**
 * The in-memory queue and its flush policy, for any transport:
 *  - a flush is due every `flushAt` calls, when the next call would take the calls waiting since
 *    the last flush over `maxBatchBytes`, `flushAfterMs` after the last flush, or on `flush()`;
 *  - a flush sends everything queued until then, in order, in batches of at most `maxBatchBytes`,
 *    one batch in flight at a time (what is due meanwhile goes in the next one);
 *  - a batch that fails with a retriable error goes back to the head of the queue, and sending
 *    stops until the next flush (per-user order is kept); any other failure drops the batch.
 * Seqs number the calls; `flush()` waiters settle once every call up to theirs is acknowledged.
 */
export class Batcher<P> {
  private readonly queue: Item<P>[] = [];
  private inFlight: Item<P>[] | undefined;
  /** The batch in flight went past its ack timeout unanswered. */
  private inFlightUnanswered = false;
  private lastSeq = 0;
  /** Every call up to this seq is due to be sent. */
  private dueThroughSeq = 0;
  private countSinceFlush = 0;
  private bytesSinceFlush = 0;
  private lastFlushMs: number;
  private cancelTimer: (() => void) | undefined;
  private readonly flushWaiters = new FlushWaiters();
  private stopped = false;
  private idleWaiters: (() => void)[] = [];
  private readonly roomWaiters = new RoomWaiters(
    () => this.stopped || this.size < this.options.maxQueuedMessages,
  );
  private droppedCount = 0;
  private readonly batchOverheadBytes: number;
  private readonly itemOverheadBytes: number;

  constructor(private readonly options: BatcherOptions<P>) {
    this.lastFlushMs = options.clock.now();
    this.batchOverheadBytes = options.batchOverheadBytes ?? 0;
    this.itemOverheadBytes = options.itemOverheadBytes ?? 0;
  }

  /** Calls held: queued, or in a batch not yet acknowledged. */
  get size(): number {
    return this.queue.length + (this.inFlight?.length ?? 0);
  }

  /** Calls in the batch handed to `send` and not yet answered (0: none). */
  get inFlightCount(): number {
    return this.inFlight?.length ?? 0;
  }

  /** Calls dropped so far: batches that failed with an error that is not retriable. */
  get dropped(): number {
    return this.droppedCount;
  }

  /** Throws QueueFullError when a call could not be queued now. */
  assertRoom(): void {
    if (this.size >= this.options.maxQueuedMessages) throw new QueueFullError(this.options.maxQueuedMessages);
  }

  /**
   * Resolves once a call can be queued (fewer than `maxQueuedMessages` held), or once the batcher
   * stopped; in the turn after a batch freed room (RoomWaiters says why).
   */
  waitForRoom(): Promise<void> {
    return this.roomWaiters.wait();
  }

  enqueue(payload: P, bytes: number, messageId = ''): void {
    this.assertRoom();
    const cost = bytes + this.itemOverheadBytes;
    if (
      this.countSinceFlush > 0 &&
      this.batchOverheadBytes + this.bytesSinceFlush + cost > this.options.maxBatchBytes
    ) {
      this.trigger('size');
    }
    this.queue.push({ seq: ++this.lastSeq, payload, messageId, bytes: cost });
    this.countSinceFlush++;
    this.bytesSinceFlush += cost;
    if (this.countSinceFlush >= this.options.flushAt) this.trigger('count');
    else this.armTimer();
  }

  /**
   * Sends everything queued; settles once all of it is acknowledged, or with the first failure.
   * Once stopped nothing more is sent: resolves if nothing is held, else rejects at once with
   * MessagesNotDeliveredError.
   */
  flush(): Promise<void> {
    if (this.size === 0) return Promise.resolve();
    if (this.stopped) return Promise.reject(this.notDelivered());
    // Nothing can be sent before that batch is answered, which took too long already.
    if (this.inFlightUnanswered) return Promise.reject(this.options.ackTimeout!.error());
    const done = this.flushWaiters.wait(this.lastSeq);
    this.trigger('flush');
    return done;
  }

  /**
   * No timer and no new batch from now on; what is still queued stays unsent, and `flush()`
   * callers still waiting are rejected with MessagesNotDeliveredError.
   */
  stop(): void {
    this.stopped = true;
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    if (this.flushWaiters.count > 0) this.flushWaiters.rejectAll(this.notDelivered());
    this.roomWaiters.wake();
  }

  private notDelivered(): MessagesNotDeliveredError {
    return new MessagesNotDeliveredError(this.size, new ClientClosedError());
  }

  /** Calls in a batch that went past its ack timeout unanswered, and may still be written. */
  get unansweredCount(): number {
    return this.inFlightUnanswered ? this.inFlightCount : 0;
  }

  /** Resolves once no batch is in flight. */
  idle(): Promise<void> {
    if (!this.inFlight) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private trigger(reason: FlushReason): void {
    this.dueThroughSeq = this.lastSeq;
    this.countSinceFlush = 0;
    this.bytesSinceFlush = 0;
    this.lastFlushMs = this.options.clock.now();
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    this.options.logger.debug(
      { reason, queued: this.queue.length, inFlight: this.inFlight?.length ?? 0 },
      'flush',
    );
    this.pump();
  }

  /** Arms the flush timer while calls wait that no flush covers yet. */
  private armTimer(): void {
    if (this.cancelTimer || this.stopped) return;
    const last = this.queue[this.queue.length - 1];
    if (!last || last.seq <= this.dueThroughSeq) return;
    const delayMs = Math.max(0, this.lastFlushMs + this.options.flushAfterMs - this.options.clock.now());
    this.cancelTimer = this.options.scheduler.setTimeout(() => {
      this.cancelTimer = undefined;
      this.trigger('timer');
    }, delayMs);
  }

  private pump(): void {
    if (this.inFlight || this.stopped) return;
    const { queue } = this;
    if (queue.length === 0 || queue[0]!.seq > this.dueThroughSeq) return;
    // A batch holds at most flushAt calls (the client spec's batch size): flushAt 1 is one call,
    // one send, even when calls queued up while the previous send was in flight.
    const { count, bytes } = cutBatch(queue, {
      flushAt: this.options.flushAt,
      maxBatchBytes: this.options.maxBatchBytes,
      batchOverheadBytes: this.batchOverheadBytes,
      dueThroughSeq: this.dueThroughSeq,
    });
    const batch = queue.splice(0, count);
    this.inFlight = batch;
    const startedMs = this.options.clock.now();
    let sending: Promise<void>;
    try {
      sending = this.options.send(batch.map((item) => item.payload));
    } catch (err) {
      sending = Promise.reject(err);
    }
    const { ackTimeout } = this.options;
    const cancelAckTimer = ackTimeout
      ? this.options.scheduler.setTimeout(
          () => this.unanswered(batch, ackTimeout.error()),
          ackTimeout.afterMs,
        )
      : undefined;
    sending.then(
      () => {
        cancelAckTimer?.();
        this.acknowledged(batch, bytes, startedMs);
      },
      (err: unknown) => {
        cancelAckTimer?.();
        this.failed(batch, err instanceof Error ? err : new Error(String(err)));
      },
    );
  }

  /**
   * The batch in flight is not answered in time. Its flush() callers hear so, but it is neither
   * dropped nor put back: sent again, it would be written twice once the first send lands (the
   * Kafka client retries it meanwhile). What happens to it is decided when `send` settles.
   */
  private unanswered(batch: Item<P>[], err: Error): void {
    if (this.inFlight !== batch) return;
    this.inFlightUnanswered = true;
    this.flushWaiters.failed(batch[0]!.seq, err);
    this.report(err, batch, true);
  }

  private report(err: Error, batch: Item<P>[], willRetry: boolean): void {
    const messages = batch.length;
    this.options.logger.warn({ messages, willRetry, err: errorMessage(err) }, 'batch failed');
    try {
      this.options.onError(err, { messages, willRetry, messageIds: batch.map((item) => item.messageId) });
    } catch (callbackErr) {
      this.options.logger.error({ err: errorMessage(callbackErr) }, 'onError callback threw');
    }
  }

  private landed(): void {
    this.inFlight = undefined;
    this.inFlightUnanswered = false;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private acknowledged(batch: Item<P>[], bytes: number, startedMs: number): void {
    this.landed();
    const lastSeq = batch[batch.length - 1]!.seq;
    this.options.logger.debug(
      { messages: batch.length, bytes, durationMs: this.options.clock.now() - startedMs },
      'batch acknowledged',
    );
    this.flushWaiters.acknowledged(lastSeq);
    this.pump();
    this.roomWaiters.wake();
  }

  private failed(batch: Item<P>[], err: Error): void {
    this.landed();
    const firstSeq = batch[0]!.seq;
    this.flushWaiters.failed(firstSeq, err);
    const willRetry = err instanceof HooklineError && err.retriable && !this.stopped;
    this.report(err, batch, willRetry);
    if (!willRetry) {
      this.droppedCount += batch.length;
      this.pump();
      this.roomWaiters.wake();
      return;
    }
    // Back at the head, in order; nothing more is sent until the next flush.
    this.queue.unshift(...batch);
    this.dueThroughSeq = firstSeq - 1;
    this.countSinceFlush = 0;
    this.bytesSinceFlush = 0;
    this.lastFlushMs = this.options.clock.now();
    this.armTimer();
  }
}
