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
  /**
   * Partition count; 'default' for the configured default; 'events' for as many as `events` has
   * (a topic whose partition n holds what partition n of hookline.events is about).
   */
  partitions: number | 'default' | 'events';
  /** Broker-side topic configs (retention, compaction). */
  configs: Record<string, string>;
  description: string;
}

export type TopicKey =
  | 'events'
  | 'catalog'
  | 'ingestDlq'
  | 'deliveries'
  | 'dlq'
  | 'attempts'
  | 'replays'
  | 'circuits'
  | 'audienceState'
  | 'audienceCommands'
  | 'audienceChanges'
  | 'audienceStatus';

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
    key: 'dlq',
    suffix: 'dlq',
    partitions: 1,
    configs: { 'retention.ms': String(30 * DAY_MS) },
    description: 'Delivery tasks given up, with their attempt history; undecodable records with the reason.',
  },
  {
    key: 'attempts',
    suffix: 'attempts',
    partitions: 'default',
    configs: { 'retention.ms': String(7 * DAY_MS) },
    description: 'One record per delivery attempt.',
  },
  {
    key: 'replays',
    suffix: 'replays',
    partitions: 1,
    configs: {
      'cleanup.policy': 'compact,delete',
      'retention.ms': String(7 * DAY_MS),
      'min.compaction.lag.ms': '0',
    },
    description: 'Progress of each replay, keyed by its id: any process answers for any replay.',
  },
  {
    key: 'circuits',
    suffix: 'circuits',
    partitions: 1,
    configs: { 'cleanup.policy': 'compact', 'min.compaction.lag.ms': '0' },
    description:
      'Circuit breaker transitions, keyed by destination id and URL index: every process follows them.',
  },
  {
    key: 'audienceState',
    suffix: 'audience-state',
    partitions: 'events',
    configs: { 'cleanup.policy': 'compact', 'min.compaction.lag.ms': '0' },
    description:
      'Per-user audience state keyed sourceId:user, on the partition of the user on hookline.events ' +
      '(transactional; read it read_committed).',
  },
  {
    key: 'audienceCommands',
    suffix: 'audience-commands',
    partitions: 'events',
    configs: { 'retention.ms': String(7 * DAY_MS) },
    description: 'Synced-audience membership changes, on the partition of the users they name.',
  },
  {
    key: 'audienceChanges',
    suffix: 'audience-changes',
    partitions: 'default',
    configs: { 'retention.ms': String(30 * DAY_MS) },
    description: 'Every identify announcing an audience or computed-trait change (transactional).',
  },
  {
    key: 'audienceStatus',
    suffix: 'audience-status',
    partitions: 1,
    configs: { 'cleanup.policy': 'compact', 'min.compaction.lag.ms': '0' },
    description: 'Per computation and partition: live or computing, and the member count (transactional).',
  },
];

/**
 * Delay topics, one per step of the retry schedule (`<prefix>.retry.10s`, ...): every record in
 * one of them waits the same delay, so due times grow along each partition.
 */
const RETRY_TOPIC_CONFIGS: Record<string, string> = { 'retention.ms': String(2 * DAY_MS) };

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
  /** The retry schedule, one delay topic per step. */
  retryScheduleMs: readonly number[];
  /** How long to wait for the new topics' partitions to have leaders. */
  leaderTimeoutMs?: number;
  logger: Logger;
}

/**
 * Creates every missing Hookline topic; existing ones are left as they are. Idempotent and safe
 * to run from several processes at once (a concurrent creation is not an error).
 */
export async function ensureTopics(options: EnsureTopicsOptions): Promise<string[]> {
  const { admin, prefix, defaultPartitions, replicationFactor, logger } = options;
  const existing = new Set(await admin.listTopics());
  const events = topicNames(prefix).events;
  // An events topic created earlier keeps its count (another default then, or grown since): the
  // topics partitioned like it are created with that count, else the audiences never start.
  const likeEventsMissing = TOPIC_SPECS.some(
    (spec) => spec.partitions === 'events' && !existing.has(`${prefix}.${spec.suffix}`),
  );
  const eventsPartitions =
    likeEventsMissing && existing.has(events) ? await partitionCount(admin, events) : defaultPartitions;
  const countOf = (partitions: TopicSpec['partitions']): number =>
    partitions === 'default' ? defaultPartitions : partitions === 'events' ? eventsPartitions : partitions;
  const wanted = [
    ...TOPIC_SPECS.map((spec) => ({
      topic: `${prefix}.${spec.suffix}`,
      partitions: countOf(spec.partitions),
      configs: spec.configs,
    })),
    ...options.retryScheduleMs.map((delayMs) => ({
      topic: retryTopic(prefix, delayMs),
      partitions: defaultPartitions,
      configs: RETRY_TOPIC_CONFIGS,
    })),
  ];
  const minInsync = minInsyncReplicasFor(replicationFactor);
  const missing: ITopicConfig[] = wanted
    .filter((t) => !existing.has(t.topic))
    .map((t) => ({
      topic: t.topic,
      numPartitions: t.partitions,
      replicationFactor,
      configEntries: Object.entries({
        ...t.configs,
        ...(minInsync !== undefined && { 'min.insync.replicas': minInsync }),
      }).map(([name, value]) => ({ name, value })),
    }));
  if (missing.length === 0) return [];
  try {
    await admin.createTopics({ topics: missing, waitForLeaders: false });
  } catch (err) {
    // Another process may have created them between listTopics and createTopics.
    const now = new Set(await admin.listTopics());
    if (!missing.every((t) => now.has(t.topic))) throw err;
  }
  const created = missing.map((t) => t.topic);
  await waitForLeaders(admin, created, options.leaderTimeoutMs ?? 30_000);
  logger.info({ topics: created }, 'created topics');
  return created;
}

/**
 * `min.insync.replicas` for a topic Hookline creates with this replication factor: 2 from 3
 * replicas up, so that an acks=all write (every Hookline producer's) survives the loss of the
 * broker that took it, while one broker may be down without refusing writes. Below 3, or with the
 * broker's default factor (-1, unknown here), the broker's own default stands (undefined).
 */
export function minInsyncReplicasFor(replicationFactor: number): string | undefined {
  return replicationFactor >= 3 ? '2' : undefined;
}

async function partitionCount(admin: Admin, topic: string): Promise<number> {
  const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
  const count = topics.find((t) => t.name === topic)?.partitions.length ?? 0;
  if (count === 0) throw new Error(`no partitions in the metadata of ${topic}`);
  return count;
}

/**
 * Waits until every partition of the topics has a leader in the metadata the brokers serve.
 * (kafkajs's own wait can fail with "does not host this topic-partition" while a new topic's
 * metadata is still propagating.)
 */
async function waitForLeaders(admin: Admin, topics: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const { topics: metadata } = await admin.fetchTopicMetadata({ topics });
      if (
        metadata.length === topics.length &&
        metadata.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0))
      ) {
        return;
      }
    } catch (err) {
      if (Date.now() > deadline) throw err;
    }
    if (Date.now() > deadline)
      throw new Error(`topics have no leader after ${timeoutMs} ms: ${topics.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** `10s`, `1m`, `1h30m`, `250ms`: a delay in topic-name form. */
export function formatDelay(ms: number): string {
  const units: [string, number][] = [
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1_000],
    ['ms', 1],
  ];
  let rest = ms;
  let out = '';
  for (const [unit, size] of units) {
    if (rest >= size) {
      out += `${Math.floor(rest / size)}${unit}`;
      rest %= size;
    }
  }
  return out || '0ms';
}

/** The delay topic of one tier: `<prefix>.retry.<delay>`, e.g. `hookline.retry.10s`. */
export function retryTopic(prefix: string, delayMs: number): string {
  return `${prefix}.retry.${formatDelay(delayMs)}`;
}
