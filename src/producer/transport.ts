import { MAX_REQUEST_BYTES } from '../events/normalize';
import type { RawMessage } from './messages';

/** The tracking API's request limit, and so the library's batch limit: 500 KB. */
export const MAX_BATCH_BYTES = MAX_REQUEST_BYTES;

/** One call, validated and encoded, ready to queue. */
export interface Prepared<P> {
  payload: P;
  /** What it adds to a batch (Kafka: key + value; HTTP: its JSON). */
  bytes: number;
  messageId: string;
}

/** Where batches go: Kafka (the default) or a Hookline tracking API. */
export interface Transport<P> {
  readonly name: 'kafka' | 'http';
  /** The write key's source, when the transport resolved it. */
  readonly sourceId: string | undefined;
  /** Bytes every batch carries besides its items. */
  readonly batchOverheadBytes: number;
  /** Bytes each item adds besides its own. */
  readonly itemOverheadBytes: number;
  /** Checks one call as the tracking API would (typed errors) and encodes it. Synchronous. */
  prepare(raw: RawMessage): Prepared<P>;
  /**
   * Resolves once the whole batch is acknowledged; rejects once it is known not to be. It must
   * not reject while the batch may still be written (the batcher would send it again).
   */
  send(batch: P[]): Promise<void>;
  /**
   * How long a batch may go unanswered before `flush()` hears so (`error()`); the batch stays in
   * flight until `send` settles. None when `send` always settles in time by itself.
   */
  readonly ackTimeout?: { afterMs: number; error(): Error };
  /**
   * `close()` of the client began: `prepare` will not be called again, `send` will, until the
   * queue is sent. The transport may let go of what only `prepare` needed meanwhile.
   */
  closing?(): void;
  close(): Promise<void>;
}
