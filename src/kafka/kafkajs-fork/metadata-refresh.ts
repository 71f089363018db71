import { createRequire } from 'node:module';
import { applied, notApplied, shapeMismatch, versionMismatch, type PatchResult } from './patch';

/**
 * kafkajs 2.2.4's Cluster keeps one metadata cache per client, for the topics it was asked about
 * (`targetTopics`), and two ways lose topics from it while they are in use:
 *
 * - `Cluster.metadata({ topics })` (admin.fetchTopicMetadata) refreshes the cache with `topics`
 *   alone, replacing the metadata of every other target topic;
 * - `refreshMetadata` and `refreshMetadataIfNecessary` share one request among concurrent callers
 *   whatever the targets were when it began, so a caller that has just added a topic can be handed
 *   metadata requested before, without it.
 *
 * A read of a topic's partitions then finds none: admin.fetchTopicOffsets throws `TypeError: Cannot
 * destructure property 'partitions' of 'high.pop(...)'` (tulios/kafkajs#461), which a fresh start
 * of Hookline met in the retry consumer's first takeovers, racing the audiences' metadata reads on
 * the shared admin; fetchOffsets returns no partitions for the topic.
 *
 * The replacements: `metadata` refreshes the cache for its topics and every target topic; the two
 * refreshes, once their shared request is done, refresh again (for all target topics, at most
 * MAX_EXTRA_REFRESHES times) while a target topic is missing from the cache.
 */

export const MAX_EXTRA_REFRESHES = 3;

const PATCHED = Symbol('hookline.metadataRefresh');

interface TopicMetadata {
  topic: string;
}

/** The fields of kafkajs's Cluster the replacements use. */
export interface ClusterState {
  targetTopics: Set<string>;
  retrier: <T>(fn: (bail: (err: unknown) => void) => Promise<T>) => Promise<T>;
  brokerPool: {
    metadata: { topicMetadata: TopicMetadata[] } | null;
    refreshMetadata(topics: string[]): Promise<void>;
    refreshMetadataIfNecessary(topics: string[]): Promise<void>;
    withBroker<T>(
      fn: (args: { broker: { metadata(topics: string[]): Promise<T> } }) => Promise<T>,
    ): Promise<T>;
  };
}

/** Target topics the cache has no metadata of. */
export function missingTargets(cluster: Pick<ClusterState, 'targetTopics' | 'brokerPool'>): string[] {
  const known = new Set((cluster.brokerPool.metadata?.topicMetadata ?? []).map((t) => t.topic));
  return [...cluster.targetTopics].filter((topic) => !known.has(topic));
}

type Refresh = (this: ClusterState) => Promise<void>;

function completing(kafkajsRefresh: Refresh): Refresh {
  return async function refresh(this: ClusterState) {
    await kafkajsRefresh.call(this);
    for (let i = 0; i < MAX_EXTRA_REFRESHES && missingTargets(this).length > 0; i++) {
      await this.brokerPool.refreshMetadata([...this.targetTopics]);
    }
  };
}

/** kafkajs's `Cluster.metadata`, refreshing the cache for every target topic, not `topics` alone. */
async function metadata(this: ClusterState, { topics = [] }: { topics?: string[] } = {}): Promise<unknown> {
  return this.retrier(async (bail) => {
    try {
      const cached = topics.length === 0 ? [] : [...new Set([...this.targetTopics, ...topics])];
      await this.brokerPool.refreshMetadataIfNecessary(cached);
      return await this.brokerPool.withBroker(async ({ broker }) => broker.metadata(topics));
    } catch (err) {
      if ((err as { type?: string }).type === 'LEADER_NOT_AVAILABLE') throw err; // retried, as kafkajs does
      bail(err);
      return undefined;
    }
  });
}

/** Replaces the three methods of kafkajs's Cluster, once per module registry; only on kafkajs 2.2.4. */
export function fixMetadataRefresh(requireFrom: NodeRequire = createRequire(__filename)): PatchResult {
  const version = versionMismatch(requireFrom);
  if (version) return notApplied('metadata-refresh', version);
  const Cluster = requireFrom('kafkajs/src/cluster') as {
    prototype: Record<string | symbol, unknown> & {
      refreshMetadata: Refresh;
      refreshMetadataIfNecessary: Refresh;
    };
  };
  if (Cluster.prototype[PATCHED]) return applied('metadata-refresh', true);
  const shape = shapeMismatch('kafkajs Cluster.prototype', Cluster.prototype, {
    metadata: 0,
    refreshMetadata: 0,
    refreshMetadataIfNecessary: 0,
    addMultipleTargetTopics: 1,
  });
  if (shape) return notApplied('metadata-refresh', shape);
  Cluster.prototype.refreshMetadata = completing(Cluster.prototype.refreshMetadata);
  Cluster.prototype.refreshMetadataIfNecessary = completing(Cluster.prototype.refreshMetadataIfNecessary);
  Cluster.prototype.metadata = metadata;
  Cluster.prototype[PATCHED] = true;
  return applied('metadata-refresh');
}
