import type { Registry } from 'prom-client';
import type { Admin, Kafka } from 'kafkajs';
import type { Catalog } from '../catalog';
import type { AdminRoute } from '../http/admin';
import type { Config } from '../config/config';
import type { Clock } from '../core/clock';
import { ConfigError } from '../core/errors';
import type { BatchingProducer } from '../kafka/batching-producer';
import { partitionOfKey } from '../kafka/partitioner';
import type { TopicNames } from '../kafka/topics';
import type { Logger } from '../observability/logger';
import { encodeJsonRecord } from '../records/audience-state';
import type { EventCodec } from '../records/event';
import { AudienceProcessor } from './processor';
import { checkStateDir } from './state-disk';
import { audienceRoutes } from './routes';
import { startStatusIndex, type StatusBoard } from './status-index';
import type { SyncPublisher } from './sync-route';

export interface AudiencesOptions {
  kafka: Kafka;
  admin: Admin;
  events: EventCodec;
  catalog: Pick<Catalog, 'store' | 'audiences' | 'mapError'>;
  /** Shared acks=all producer: sync commands. */
  producer: BatchingProducer;
  topics: Pick<
    TopicNames,
    'events' | 'audienceCommands' | 'audienceState' | 'audienceChanges' | 'audienceStatus'
  >;
  /** The processor runs with the role `audiences`; the admin API is on every process. */
  config: Pick<Config, 'roles' | 'audiences'> & {
    topics: Pick<Config['topics'], 'prefix'>;
    kafka: Pick<Config['kafka'], 'sessionTimeoutMs'>;
  };
  /** The process's registry: the processor's consumer lag. */
  metrics?: Registry;
  clock: Clock;
  logger: Logger;
}

export interface Audiences {
  status: StatusBoard;
  /** The admin API: definitions (with their status) and /sync. */
  api: { routes: AdminRoute[]; mapError: (err: unknown) => unknown };
  processor: AudienceProcessor | undefined;
  stop(): Promise<void>;
}

/**
 * The audiences stage of one process: the status board the admin API reads, the /sync publisher,
 * and, with the `audiences` role, the processor. hookline.audience-state and
 * hookline.audience-commands must have as many partitions as hookline.events (a user's state and
 * commands sit on the partition number of their events).
 */
export async function startAudiences(options: AudiencesOptions): Promise<Audiences> {
  const { kafka, admin, logger, config } = options;
  const groupId = `${config.topics.prefix}.audiences`;
  const names = options.topics;
  const topics = {
    events: names.events,
    commands: names.audienceCommands,
    state: names.audienceState,
    changes: names.audienceChanges,
    status: names.audienceStatus,
  };
  const { topics: metadata } = await admin.fetchTopicMetadata({
    topics: [topics.events, topics.commands, topics.state],
  });
  const counts = new Map(metadata.map((t) => [t.name, t.partitions.length]));
  const partitions = counts.get(topics.events) ?? 0;
  for (const topic of [topics.commands, topics.state]) {
    if (counts.get(topic) !== partitions)
      throw new ConfigError(
        'HOOKLINE_TOPIC_PARTITIONS',
        `${topic} has ${counts.get(topic)} partitions, ${topics.events} ${partitions}: they must be equal`,
      );
  }
  const log = logger.child({ component: 'audiences' });
  const status = await startStatusIndex({
    kafka,
    admin,
    topic: topics.status,
    partitions,
    groupIdPrefix: `${groupId}.status`,
    logger: log,
  });
  const sync: SyncPublisher = {
    partitions,
    partitionOf: (userId) => partitionOfKey(userId, partitions),
    publish: (commands) =>
      options.producer.send(
        commands.map(({ partition, command }) => ({
          topic: topics.commands,
          key: command.audienceId,
          partition,
          value: encodeJsonRecord(command),
        })),
      ),
  };
  let processor: AudienceProcessor | undefined;
  if (config.roles.includes('audiences')) {
    processor = new AudienceProcessor({
      kafka,
      admin,
      events: options.events,
      catalog: options.catalog.store,
      topics,
      groupId,
      ...config.audiences,
      sessionTimeoutMs: config.kafka.sessionTimeoutMs,
      metrics: options.metrics,
      clock: options.clock,
      logger: log,
    });
    try {
      checkStateDir(config.audiences.stateDir);
      await processor.start();
    } catch (err) {
      await status.stop();
      throw err;
    }
  }
  return {
    status: status.board,
    api: {
      routes: audienceRoutes({
        service: options.catalog.audiences,
        catalog: options.catalog.store.audiences,
        status: status.board,
        sync,
      }),
      mapError: options.catalog.mapError,
    },
    processor,
    stop: async () => {
      await processor?.stop();
      await status.stop();
    },
  };
}
