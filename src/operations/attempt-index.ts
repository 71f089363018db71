import type { Admin, Kafka } from 'kafkajs';
import type { AvroCodec } from '../avro/codec';
import type { Clock } from '../core/clock';
import { decodeAttempt } from '../records/delivery-attempt';
import type { Logger } from '../observability/logger';
import { AttemptLog } from './attempt-log';
import { startIndexer } from '../kafka/indexer';

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
  clock: Clock;
  logger: Logger;
}

export interface AttemptIndex {
  log: AttemptLog;
  stop(): Promise<void>;
}

/**
 * Recent delivery attempts per destination, read from the attempts topic: at start from
 * `windowMs` ago (by record time), then live, with a private group that never commits. "Recent"
 * is the contract: an attempt shows up shortly after it was made, not at once.
 */
export async function startAttemptIndex(options: AttemptIndexOptions): Promise<AttemptIndex> {
  const { avro } = options;
  const log = new AttemptLog({ perDestination: options.perDestination });
  const indexer = await startIndexer({
    kafka: options.kafka,
    admin: options.admin,
    topic: options.topic,
    groupIdPrefix: `${options.clientId}-attempt-index`,
    sinceMs: options.clock.now() - options.windowMs,
    logger: options.logger.child({ component: 'attempt-index' }),
    decode: (record) => decodeAttempt(avro, record.value),
    apply: (_record, entry) => log.add(entry),
  });
  return { log, stop: indexer.stop };
}
