import type { Admin, Kafka } from 'kafkajs';
import type { AvroCodec } from '../avro/codec';
import type { Clock } from '../core/clock';
import { decodeAttempt } from '../records/delivery-attempt';
import type { Logger } from '../observability/logger';
import { AttemptLog } from './attempt-log';
import { startFollower, type FollowedRecord } from '../kafka/follower';

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
  clock: Clock;
  logger: Logger;
}

export interface AttemptIndex {
  log: AttemptLog;
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
  const { avro } = options;
  const logger = options.logger.child({ component: 'attempt-index' });
  const log = new AttemptLog({
    perDestination: options.perDestination,
    maxBytes: options.maxBytes,
    decode: (bytes) => decodeAttempt(avro, bytes),
    onUndecodable: (err) => logger.warn({ reason: err.message }, 'left out an undecodable attempt record'),
  });
  const follower = await startFollower({
    kafka: options.kafka,
    admin: options.admin,
    topic: options.topic,
    groupIdPrefix: `${options.clientId}-attempt-index`,
    sinceMs: options.clock.now() - options.windowMs,
    ...(options.partitions && { partitions: options.partitions }),
    // One attempt record per delivery: fetched as they come, that was ~14 records a fetch under
    // load. The index may lag by the follower's fetch wait (100 ms) when few attempts are made.
    fetchMinBytes: ATTEMPT_FETCH_MIN_BYTES,
    logger,
    handleBatch: async (records) => {
      for (const record of records) keep(log, record, logger);
    },
  });
  return { log, stop: follower.stop };
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
