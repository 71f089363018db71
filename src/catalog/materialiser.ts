import type { Admin, Kafka } from 'kafkajs';
import { UndecodableRecordError } from '../core/errors';
import { startIndexer } from '../kafka/indexer';
import type { FollowedRecord } from '../kafka/follower';
import type { Logger } from '../observability/logger';
import type { CatalogEntity, CatalogRecordCodec } from '../records/catalog';
import type { CatalogStore } from './store';
import { recordVersion } from './versions';

export interface MaterialiserOptions {
  kafka: Kafka;
  admin: Admin;
  topic: string;
  /** Base of the consumer group id; each process gets its own group. */
  clientId: string;
  codec: CatalogRecordCodec;
  store: CatalogStore;
  logger: Logger;
}

export interface Materialiser {
  groupId: string;
  /** False once the consumer has crashed for good (kafkajs gave up restarting it) or was stopped. */
  following(): boolean;
  stop(): Promise<void>;
}

/**
 * Reads the catalog topic from the beginning into the store, then follows it live. The consumer
 * group is unique to this process and never commits, so every start replays the whole
 * (compacted) topic. The high watermarks observed at start define "caught up".
 *
 * A record the codec leaves out (a sources-only view's destinations) is read past, not applied.
 * A record that cannot be decoded (corrupt, unknown schema, no key, id ≠ key) is logged and
 * skipped; a transient failure (registry unavailable) is retried in place, so no change is lost.
 * Each record's version headers decide whether it applies (compare-and-set, versions.ts).
 */
export async function startMaterialiser(options: MaterialiserOptions): Promise<Materialiser> {
  const { topic, store } = options;
  const position = (record: FollowedRecord) => ({ partition: record.partition, offset: record.offset });
  const keyOf = (record: FollowedRecord) => record.key?.toString('utf8') || undefined;
  const logger = options.logger.child({ component: 'catalog', topic });
  const skip = (record: FollowedRecord, reason: string) => {
    logger.warn({ ...position(record), key: keyOf(record), reason }, 'skipping undecodable catalog record');
    store.skip(position(record));
  };
  const indexer = await startIndexer<CatalogEntity | undefined>({
    kafka: options.kafka,
    admin: options.admin,
    topic,
    groupIdPrefix: `${options.clientId}-catalog`,
    logger,
    decode: async (record) => {
      const key = keyOf(record);
      if (!key) throw new UndecodableRecordError('record without a key');
      const entity = await options.codec.decode(record.value);
      if (entity && entity.value.id !== key)
        throw new UndecodableRecordError(`the ${entity.kind} id differs from the record key`);
      return entity;
    },
    apply: (record, entity) => {
      if (entity) store.apply(position(record), entity.value.id, entity, recordVersion(record.headers));
      else store.passOver(position(record));
    },
    tombstone: (record) => {
      const key = keyOf(record);
      // deletes the entity, unless its version says the delete is stale (versions.ts)
      if (key) store.apply(position(record), key, undefined, recordVersion(record.headers));
      else skip(record, 'record without a key');
    },
    skip,
  });
  store.expect(indexer.ranges.map((r) => ({ partition: r.partition, low: r.start, high: r.end })));
  return {
    groupId: indexer.groupId,
    following: indexer.following,
    stop: async () => {
      store.close();
      await indexer.stop();
    },
  };
}
