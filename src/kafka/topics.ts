import type { Admin, ITopicConfig } from 'kafkajs';
import type { Logger } from '../observability/logger';

/**
 * Every topic Hookline uses, declared once. Names are part of Hookline's public contract
 * (`hookline.events`, ...); the prefix exists so tests can isolate themselves on a shared cluster.
 */
export interface TopicSpec {
  /** Logical name used in code. */
  key: TopicKey;
  /** Suffix after the prefix: `<prefix>.<suffix>`. */
  suffix: string;
  /** Partition count, or 'default' for the configured default. */
  partitions: number | 'default';
  /** Broker-side topic configs (retention, compaction). */
  configs: Record<string, string>;
  description: string;
}

export type TopicKey = 'events' | 'catalog' | 'ingestDlq' | 'deliveries' | 'retry' | 'dlq' | 'attempts';

const DAY_MS = 86_400_000;

export const TOPIC_SPECS: readonly TopicSpec[] = [
  {
    key: 'events',
    suffix: 'events',
    partitions: 'default',
    configs: { 'retention.ms': String(7 * DAY_MS) },
    description: 'Accepted tracking events (Avro), keyed by userId or anonymousId.',
  },
  {
    key: 'catalog',
    suffix: 'catalog',
    partitions: 1,
    configs: { 'cleanup.policy': 'compact', 'min.compaction.lag.ms': '0' },
    description: 'Sources and destinations, event-sourced; key = entity id, tombstone = delete.',
  },
  {
    key: 'ingestDlq',
    suffix: 'ingest-dlq',
    partitions: 1,
    configs: { 'retention.ms': String(14 * DAY_MS) },
    description: 'Events refused at ingest, each with the reason.',
  },
  {
    key: 'deliveries',
    suffix: 'deliveries',
    partitions: 'default',
    configs: { 'retention.ms': String(7 * DAY_MS) },
    description: 'Delivery tasks, one per event and destination.',
  },
  {
    key: 'retry',
    suffix: 'retry',
    partitions: 'default',
    configs: { 'retention.ms': String(2 * DAY_MS) },
    description: 'Failed delivery tasks waiting for their next attempt.',
  },
  {
    key: 'dlq',
    suffix: 'dlq',
    partitions: 1,
    configs: { 'retention.ms': String(30 * DAY_MS) },
    description: 'Delivery tasks that will not be retried, with their attempt history.',
  },
  {
    key: 'attempts',
    suffix: 'attempts',
    partitions: 'default',
    configs: { 'retention.ms': String(7 * DAY_MS) },
    description: 'One record per delivery attempt.',
  },
];

export type TopicNames = Record<TopicKey, string>;

export function topicNames(prefix: string): TopicNames {
  const names = {} as TopicNames;
  for (const spec of TOPIC_SPECS) names[spec.key] = `${prefix}.${spec.suffix}`;
  return names;
}

export interface EnsureTopicsOptions {
  admin: Admin;
  prefix: string;
  defaultPartitions: number;
  /** -1 lets the broker choose (default.replication.factor). */
  replicationFactor: number;
  logger: Logger;
}

/**
 * Creates every missing Hookline topic; existing ones are left as they are. Idempotent and safe
 * to run from several processes at once (a concurrent creation is not an error).
 */
export async function ensureTopics(options: EnsureTopicsOptions): Promise<string[]> {
  const { admin, prefix, defaultPartitions, replicationFactor, logger } = options;
  const existing = new Set(await admin.listTopics());
  const missing: ITopicConfig[] = TOPIC_SPECS.filter((spec) => !existing.has(`${prefix}.${spec.suffix}`)).map(
    (spec) => ({
      topic: `${prefix}.${spec.suffix}`,
      numPartitions: spec.partitions === 'default' ? defaultPartitions : spec.partitions,
      replicationFactor,
      configEntries: Object.entries(spec.configs).map(([name, value]) => ({ name, value })),
    }),
  );
  if (missing.length === 0) return [];
  try {
    await admin.createTopics({ topics: missing, waitForLeaders: true });
  } catch (err) {
    // Another process may have created them between listTopics and createTopics.
    const now = new Set(await admin.listTopics());
    if (!missing.every((t) => now.has(t.topic))) throw err;
  }
  const created = missing.map((t) => t.topic);
  logger.info({ topics: created }, 'created topics');
  return created;
}
