import type { Admin, Kafka } from 'kafkajs';
import { retryTransient } from '../core/backoff';
import { UndecodableRecordError, errorMessage } from '../core/errors';
import type { Logger } from '../observability/logger';
import { startFollower, type FollowedRecord, type Follower } from './follower';

export interface IndexerOptions<T> {
  kafka: Kafka;
  admin: Admin;
  topic: string;
  groupIdPrefix: string;
  /** Start at this record time; from the beginning when absent. */
  sinceMs?: number;
  /**
   * A record → its value. Retried in place while it fails transiently (registry down), so nothing
   * is lost; a record it cannot decode (any other error) is logged and skipped.
   */
  decode(record: FollowedRecord & { value: Buffer }): Promise<T>;
  /** One decoded record, in offset order per partition. */
  apply(record: FollowedRecord, value: T): void;
  /** Told of each record read past without being applied. Default: a warning is logged. */
  skip?(record: FollowedRecord, reason: string): void;
  /**
   * For a compacted topic: a record without a value is a tombstone, handed here. Without this
   * callback such a record is unreadable and skipped.
   */
  tombstone?(record: FollowedRecord): void;
  logger: Logger;
}

/**
 * Follows a topic live into an in-memory index or view, with a private consumer group that never
 * commits (see `startFollower`): the one way Hookline materialises a topic (the catalog, the
 * dead-letter index, the attempt log).
 */
export async function startIndexer<T>(options: IndexerOptions<T>): Promise<Follower> {
  const { logger } = options;
  let running = true;
  const skip =
    options.skip ??
    ((record: FollowedRecord, reason: string) =>
      logger.warn(
        { partition: record.partition, offset: record.offset, reason },
        'skipping unreadable record',
      ));
  const follower = await startFollower({
    kafka: options.kafka,
    admin: options.admin,
    topic: options.topic,
    groupIdPrefix: options.groupIdPrefix,
    sinceMs: options.sinceMs,
    logger,
    handleBatch: async (records) => {
      for (const record of records) {
        const { value } = record;
        if (value === null) {
          if (options.tombstone) options.tombstone(record);
          else skip(record, new UndecodableRecordError('empty record value').message);
          continue;
        }
        let decoded: T;
        try {
          decoded = await retryTransient(() => options.decode({ ...record, value }), {
            isRunning: () => running,
            logger,
            context: { partition: record.partition, offset: record.offset },
          });
        } catch (err) {
          skip(record, errorMessage(err));
          continue;
        }
        options.apply(record, decoded);
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
