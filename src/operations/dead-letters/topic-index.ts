import type { Admin, Kafka } from 'kafkajs';
import type { AvroCodec } from '../../avro/codec';
import type { Logger } from '../../observability/logger';
import { decodeDlqRecord, type DlqRecord } from '../../records/dlq';
import { checkIndexDir } from './files';
import { DlqStore } from './store';
import { startIndexer } from '../../kafka/indexer';

export interface DlqIndexOptions {
  kafka: Kafka;
  admin: Admin;
  avro: AvroCodec;
  /** `<prefix>.dlq`. */
  topic: string;
  /** Base of the private consumer group id. */
  clientId: string;
  /** Where the index files go (HOOKLINE_DLQ_INDEX_DIR). */
  dir: string;
  /** Dead letters kept decoded in memory (HOOKLINE_DLQ_CACHE_ENTRIES). */
  cacheEntries: number;
  logger: Logger;
}

export interface DlqIndex {
  state: DlqStore;
  /** Read the whole topic as it stood at start (listings are complete, redrives are safe). */
  ready(): boolean;
  stop(): Promise<void>;
}

/**
 * Every dead letter of the dead-letter topic, indexed on disk (`DlqStore`): the whole topic is
 * read at start (30 days' retention) and followed live, with a group of this process's own that
 * never commits. Redrive markers on the same topic mark dead letters as redriven. The files are a
 * cache of the topic, rebuilt at every start; memory does not grow with the number of dead letters.
 */
export async function startDlqIndex(options: DlqIndexOptions): Promise<DlqIndex> {
  checkIndexDir(options.dir);
  const state = new DlqStore({ dir: options.dir, cacheEntries: options.cacheEntries });
  const indexer = await startIndexer<DlqRecord>({
    kafka: options.kafka,
    admin: options.admin,
    topic: options.topic,
    groupIdPrefix: `${options.clientId}-dlq-index`,
    logger: options.logger.child({ component: 'dlq-index' }),
    decode: (record) => decodeDlqRecord(options.avro, record.value),
    apply: (position, record) => state.apply(position, record),
  }).catch((err: unknown) => {
    state.close();
    throw err;
  });
  return {
    state,
    ready: indexer.caughtUp,
    stop: async () => {
      await indexer.stop();
      state.close();
    },
  };
}
