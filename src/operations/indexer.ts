import type { Admin, Kafka } from 'kafkajs';
import { UndecodableRecordError, errorMessage } from '../errors';
import type { Logger } from '../observability/logger';
import { startFollower, type Follower } from './follower';
import type { RecordPosition } from './positions';
import { retryTransient } from '../kafka/transient';

export interface IndexerOptions<T> {
  kafka: Kafka;
  admin: Admin;
  topic: string;
  groupIdPrefix: string;
  /** Start at this record time; from the beginning when absent. */
  sinceMs?: number;
  /** Bytes → value; retried while it fails transiently (registry down), skipped when it cannot. */
  decode(bytes: Buffer): Promise<T>;
  apply(position: RecordPosition, value: T): void;
  logger: Logger;
}

/**
 * Follows a topic live into an in-memory index: each record is decoded (retried in place while
 * the registry is unavailable, so nothing is lost) and applied; a record that cannot be decoded
 * is logged and skipped.
 */
export async function startIndexer<T>(options: IndexerOptions<T>): Promise<Follower> {
  const { logger } = options;
  let running = true;
  const follower = await startFollower({
    kafka: options.kafka,
    admin: options.admin,
    topic: options.topic,
    groupIdPrefix: options.groupIdPrefix,
    sinceMs: options.sinceMs,
    logger,
    handleBatch: async (records) => {
      for (const record of records) {
        const position = { partition: record.partition, offset: record.offset };
        try {
          const bytes = record.value;
          if (!bytes) throw new UndecodableRecordError('empty record value');
          const value = await retryTransient(() => options.decode(bytes), {
            isRunning: () => running,
            logger,
            context: position,
          });
          options.apply(position, value);
        } catch (err) {
          logger.warn({ ...position, reason: errorMessage(err) }, 'skipping unreadable record');
        }
      }
    },
  });
  return {
    ...follower,
    stop: async () => {
      running = false;
      await follower.stop();
    },
  };
}
