import type { Admin, Kafka } from 'kafkajs';
import type { AvroCodec } from '../avro/codec';
import type { Logger } from '../observability/logger';
import { decodeDlqRecord } from '../records/dlq';
import { DlqState } from './dlq-state';
import { startIndexer } from '../kafka/indexer';

export interface DlqIndexOptions {
  kafka: Kafka;
  admin: Admin;
  avro: AvroCodec;
  /** `<prefix>.dlq`. */
  topic: string;
  /** Base of the private consumer group id. */
  clientId: string;
  logger: Logger;
}

export interface DlqIndex {
  state: DlqState;
  /** Read the whole topic as it stood at start (listings are complete, redrives are safe). */
  ready(): boolean;
  stop(): Promise<void>;
}

/**
 * Every dead letter of the dead-letter topic, in memory: the whole topic is read at start (it
 * is small: only given-up tasks, 30 days' retention) and followed live, with a group of this
 * process's own that never commits. Redrive markers on the same topic mark dead letters as
 * redriven. Memory grows with the topic, payloads included: sized for up to ~100,000 dead letters.
 */
export async function startDlqIndex(options: DlqIndexOptions): Promise<DlqIndex> {
  const state = new DlqState();
  const indexer = await startIndexer({
    kafka: options.kafka,
    admin: options.admin,
    topic: options.topic,
    groupIdPrefix: `${options.clientId}-dlq-index`,
    logger: options.logger.child({ component: 'dlq-index' }),
    decode: (record) => decodeDlqRecord(options.avro, record.value),
    apply: (position, record) => state.apply(position, record),
  });
  return { state, ready: indexer.caughtUp, stop: indexer.stop };
}
