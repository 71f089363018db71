import { createRequire } from 'node:module';
import { applied, notApplied, shapeMismatch, versionMismatch, type PatchResult } from './patch';

/**
 * kafkajs 2.2.4 keeps a 1 ms timer running on every broker connection for as long as it is open
 * (tulios/kafkajs#1556, fix proposed in #1667, never released: the project has had no release
 * since). `RequestQueue.scheduleCheckPendingRequests` computes `throttledUntil - Date.now()`,
 * which is negative when the broker is not throttling the client, and arms a timer with it even
 * when no request is waiting; the timer calls it again. Hookline holds a few dozen connections
 * (every consumer group, producer and admin has its own), so an idle process woke its event loop
 * about once a millisecond per connection, and under load the timers ran between every piece of
 * work (docs/adr/0001-kafka-client.md).
 *
 * The replacement arms the timer only when a request is waiting: for the end of the broker's
 * throttle, or 10 ms (kafkajs's own interval) when it waits for an in-flight slot. A waiting
 * request needs no timer otherwise: a response or a timed-out request checks the queue again
 * (`fulfillRequest`, the socket request's `timeout`), as kafkajs already does.
 */

/** kafkajs's CHECK_PENDING_REQUESTS_INTERVAL: how often a waiting request is looked at again. */
export const CHECK_PENDING_REQUESTS_INTERVAL_MS = 10;

/** The fields of kafkajs's RequestQueue the replacement reads and writes. */
export interface RequestQueueState {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
}

/**
 * When the queue should look at its waiting requests again, in ms from `nowMs`; undefined: no
 * timer (nothing waits, or a timer is already armed).
 */
export function pendingCheckDelayMs(queue: RequestQueueState, nowMs: number): number | undefined {
  if (queue.throttleCheckTimeoutId !== null || queue.pending.length === 0) return undefined;
  const throttledForMs = queue.throttledUntil - nowMs;
  return throttledForMs > 0 ? throttledForMs : CHECK_PENDING_REQUESTS_INTERVAL_MS;
}

function scheduleCheckPendingRequests(this: RequestQueueState): void {
  const delayMs = pendingCheckDelayMs(this, Date.now());
  if (delayMs === undefined) return;
  this.throttleCheckTimeoutId = setTimeout(() => {
    this.throttleCheckTimeoutId = null;
    this.checkPendingRequests();
  }, delayMs);
}

/**
 * Replaces the method on kafkajs's RequestQueue, once per module registry: only on kafkajs 2.2.4,
 * whose method has the bug. `requireFrom` is for tests.
 */
export function fixRequestQueueTimer(requireFrom: NodeRequire = createRequire(__filename)): PatchResult {
  const version = versionMismatch(requireFrom);
  if (version) return notApplied('request-queue-timer', version);
  const RequestQueue = requireFrom('kafkajs/src/network/requestQueue') as {
    prototype: { scheduleCheckPendingRequests: (this: RequestQueueState) => void };
  };
  const current = RequestQueue.prototype.scheduleCheckPendingRequests;
  if (current === scheduleCheckPendingRequests) return applied('request-queue-timer', true);
  const shape = shapeMismatch('kafkajs RequestQueue.prototype', RequestQueue.prototype, {
    scheduleCheckPendingRequests: 0,
    checkPendingRequests: 0,
  });
  if (shape) return notApplied('request-queue-timer', shape);
  RequestQueue.prototype.scheduleCheckPendingRequests = scheduleCheckPendingRequests;
  return applied('request-queue-timer');
}
