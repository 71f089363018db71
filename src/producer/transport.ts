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
  /** Resolves once the whole batch is acknowledged. */
  send(batch: P[]): Promise<void>;
  /**
   * `close()` of the client began: `prepare` will not be called again, `send` will, until the
   * queue is sent. The transport may let go of what only `prepare` needed meanwhile.
   */
  closing?(): void;
  close(): Promise<void>;
}
