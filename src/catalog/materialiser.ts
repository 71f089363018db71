import { randomBytes } from 'node:crypto';
import type { Admin, Kafka } from 'kafkajs';
import { HooklineError, errorMessage } from '../errors';
import type { Logger } from '../observability/logger';
import type { CatalogEntity, CatalogRecordCodec } from './records';
import { isRetriableKafkaError, retryTransient } from '../kafka/transient';
import type { CatalogStore, TopicPosition } from './store';

export interface MaterialiserOptions {
  kafka: Kafka;
  admin: Admin;
  topic: string;
  /** Base of the consumer group id; each process gets its own group. */
  clientId: string;
  codec: CatalogRecordCodec;
  store: CatalogStore;
  logger: Logger;
  /** Longest wait between decode retries while the schema registry is unavailable. */
  maxRetryDelayMs?: number;
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
 * (compacted) topic. The high watermarks observed before subscribing define "caught up".
 *
 * A record that cannot be decoded (corrupt, unknown schema, id ≠ key) is logged and skipped; a
 * transient failure (registry unavailable) is retried in place, so no change is ever lost.
 */
export async function startMaterialiser(options: MaterialiserOptions): Promise<Materialiser> {
  const { kafka, admin, topic, codec, store } = options;
  const maxRetryDelayMs = options.maxRetryDelayMs ?? 5_000;
  const groupId = `${options.clientId}-catalog-${randomBytes(6).toString('hex')}`;
  const logger = options.logger.child({ component: 'catalog', topic, groupId });

  // kafkajs's admin gives up at once on NOT_LEADER_FOR_PARTITION while a new topic's leader settles.
  store.expect(
    await retryTransient(() => admin.fetchTopicOffsets(topic), {
      isRunning: () => true,
      isRetriable: isRetriableKafkaError,
      maxAttempts: 8,
      logger,
      context: { step: 'catalog high watermarks' },
    }),
  );

  const consumer = kafka.consumer({
    groupId,
    // Live changes should reach every process quickly; the topic is small and mostly idle.
    maxWaitTimeInMs: 100,
    allowAutoTopicCreation: false,
  });
  let running = true;
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    logger.error({ err: payload.error, restart: payload.restart }, 'catalog consumer crashed');
    if (!payload.restart) running = false;
  });

  /** Decodes one value; retries while the failure is transient (registry down) and we still run. */
  const decode = async (
    position: TopicPosition,
    key: string,
    value: Buffer,
    heartbeat: () => Promise<void>,
  ): Promise<CatalogEntity | { skip: string }> => {
    for (let attempt = 1; ; attempt++) {
      try {
        const entity = await codec.decode(value);
        return entity.value.id === key
          ? entity
          : { skip: `the ${entity.kind} id differs from the record key` };
      } catch (err) {
        const retriable = err instanceof HooklineError && err.retriable;
        if (!retriable || !running) return { skip: errorMessage(err) };
        const delayMs = Math.min(maxRetryDelayMs, 100 * 2 ** attempt);
        logger.warn(
          { ...position, key, attempt, delayMs, reason: errorMessage(err) },
          'catalog record decode failed; retrying',
        );
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        await heartbeat();
      }
    }
  };

  const skip = (position: TopicPosition, key: string | undefined, reason: string) => {
    logger.warn({ ...position, key, reason }, 'skipping undecodable catalog record');
    store.skip(position);
  };

  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch, heartbeat, isRunning, isStale }) => {
        for (const message of batch.messages) {
          if (!isRunning() || isStale()) return;
          const position = { partition: batch.partition, offset: message.offset };
          if (!store.isNew(position)) continue;
          const key = message.key?.toString('utf8');
          if (!key) {
            skip(position, key, 'record without a key');
          } else if (message.value === null) {
            store.apply(position, key, undefined); // a tombstone deletes the entity
          } else {
            const result = await decode(position, key, message.value, heartbeat);
            if ('skip' in result) skip(position, key, result.skip);
            else store.apply(position, key, result);
          }
          await heartbeat();
        }
      },
    });
  } catch (err) {
    await consumer.disconnect();
    throw err;
  }
  logger.debug('catalog materialiser started');

  return {
    groupId,
    following: () => running,
    stop: async () => {
      running = false;
      store.close();
      await consumer.disconnect();
    },
  };
}
