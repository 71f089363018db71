/** A queued call, as the batcher holds it. */
export interface QueuedItem<P> {
  seq: number;
  payload: P;
  messageId: string;
  /** Its share of a batch: own bytes plus the per-item overhead. */
  bytes: number;
}

export interface BatchLimits {
  /** Calls in one batch at most (the client spec's batch size). */
  flushAt: number;
  /** Bytes of one batch at most: batchOverheadBytes + Σ item bytes. */
  maxBatchBytes: number;
  /** Bytes every batch carries besides its items. */
  batchOverheadBytes: number;
  /** Only calls up to this seq are due. */
  dueThroughSeq: number;
}

/**
 * How many calls from the head of the queue go into the next batch, and its bytes: the due calls,
 * in order, at most `flushAt` of them and at most `maxBatchBytes`, but always the first one (a
 * call is never over the limit alone: the transport refused larger ones). 0 when none is due.
 */
export function cutBatch<P>(
  queue: readonly QueuedItem<P>[],
  limits: BatchLimits,
): { count: number; bytes: number } {
  let bytes = limits.batchOverheadBytes;
  let count = 0;
  while (
    count < queue.length &&
    count < limits.flushAt &&
    queue[count]!.seq <= limits.dueThroughSeq &&
    (count === 0 || bytes + queue[count]!.bytes <= limits.maxBatchBytes)
  ) {
    bytes += queue[count]!.bytes;
    count++;
  }
  return { count, bytes };
}
