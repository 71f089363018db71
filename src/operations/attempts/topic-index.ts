import type { Admin, Kafka } from 'kafkajs';
import type { AvroCodec } from '../../avro/codec';
import type { Clock } from '../../core/clock';
import { decodeAttempt } from '../../records/delivery-attempt';
import type { Logger } from '../../observability/logger';
import { AttemptLog, type AttemptSource } from './log';
import { AttemptIndexUnavailableError } from '../errors';
import { errorMessage } from '../../core/errors';
import { startFollower, type FollowedRecord } from '../../kafka/follower';

export interface AttemptIndexOptions {
  kafka: Kafka;
  admin: Admin;
  avro: AvroCodec;
  /** `<prefix>.attempts`. */
  topic: string;
  /** Base of the private consumer group id. */
  clientId: string;
  /** Read attempts written in the last `windowMs` at start (24 h). */
  windowMs: number;
  /** Attempts kept per destination (1,000). */
  perDestination: number;
  /** Bytes all kept attempts may take (64 MiB). */
  maxBytes: number;
  /** Read only these partitions (this process's share of a shared index); all when absent. */
  partitions?: number[];
  /**
   * Go on with an earlier index's log: the partitions in `startAt` from where its follower
   * stopped (`nextOffsets`), the others from `windowMs` ago. A shared index keeps so what it
   * already read of the partitions a new share leaves it.
   */
  resume?: { log: AttemptLog; startAt: ReadonlyMap<number, string> };
  clock: Clock;
  logger: Logger;
}

export interface AttemptIndex {
  log: AttemptLog;
  /** Per partition, the offset of the next record to read (see `resume`). */
  nextOffsets(): Map<number, string>;
  /** Resolves once it read what was there at its start; rejects if it stopped before. */
  whenCaughtUp(): Promise<void>;
  stop(): Promise<void>;
}

/** What a fetch of the attempt index waits for (or 100 ms): a few hundred attempt records. */
export const ATTEMPT_FETCH_MIN_BYTES = 64 * 1024;

/**
 * Recent delivery attempts per destination, read from the attempts topic: at start from
 * `windowMs` ago (by record time), then live, with a private group that never commits. "Recent"
 * is the contract: an attempt shows up shortly after it was made, not at once.
 *
 * Records are kept undecoded by their key (the destination id), outside the JavaScript heap
 * (AttemptRings), and decoded when a query reads them: following the topic costs each process
 * little more than the Kafka client's own work.
 */
export async function startAttemptIndex(options: AttemptIndexOptions): Promise<AttemptIndex> {
  const logger = options.logger.child({ component: 'attempt-index' });
  const log = options.resume?.log ?? newAttemptLog(options);
  const follower = await startFollower({
    kafka: options.kafka,
    admin: options.admin,
    topic: options.topic,
    groupIdPrefix: `${options.clientId}-attempt-index`,
    sinceMs: options.clock.now() - options.windowMs,
    ...(options.partitions && { partitions: options.partitions }),
    ...(options.resume && { startAt: options.resume.startAt }),
    // One attempt record per delivery: fetched as they come, that was ~14 records a fetch under
    // load. The index may lag by the follower's fetch wait (100 ms) when few attempts are made.
    fetchMinBytes: ATTEMPT_FETCH_MIN_BYTES,
    logger,
    handleBatch: async (records) => {
      for (const record of records) keep(log, record, logger);
    },
  });
  return {
    log,
    nextOffsets: follower.nextOffsets,
    whenCaughtUp: follower.whenCaughtUp,
    stop: follower.stop,
  };
}

/** An empty log for an index's attempts, decoding them with `avro` when a query reads them. */
export function newAttemptLog(
  options: Pick<AttemptIndexOptions, 'avro' | 'perDestination' | 'maxBytes' | 'logger'>,
): AttemptLog {
  const logger = options.logger.child({ component: 'attempt-index' });
  return new AttemptLog({
    perDestination: options.perDestination,
    maxBytes: options.maxBytes,
    decode: (bytes) => decodeAttempt(options.avro, bytes),
    onUndecodable: (err) => logger.warn({ reason: err.message }, 'left out an undecodable attempt record'),
  });
}

function keep(log: AttemptLog, record: FollowedRecord, logger: Logger): void {
  const { key, value } = record;
  if (key === null || key.length === 0 || value === null) {
    const reason = value === null ? 'empty record value' : 'record without a key';
    logger.warn({ partition: record.partition, offset: record.offset, reason }, 'skipping unreadable record');
    return;
  }
  // The client's value is a view of the whole fetch response: the log copies the bytes it keeps.
  log.addRecord(key.toString('utf8'), value);
}

/**
 * The index's log, answering 503 `attempt_index_unavailable` until it read its window at start:
 * it reads the oldest attempts first, so an answer before that would lack the newest.
 */
export function answeredOnceRead(index: AttemptIndex): AttemptSource {
  let unread: string | undefined = 'the attempt index is still reading the attempts of its window';
  index.whenCaughtUp().then(
    () => (unread = undefined),
    (err: unknown) => (unread = `the attempt index stopped reading: ${errorMessage(err)}`),
  );
  return {
    find: (destinationId, query) =>
      unread === undefined
        ? index.log.find(destinationId, query)
        : Promise.reject(new AttemptIndexUnavailableError(unread)),
  };
}
