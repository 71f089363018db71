import type { Admin, ITopicConfig } from 'kafkajs';
import { ensureTopics, minInsyncReplicasFor, topicNames } from '../../../src/kafka/topics';
import { silentLogger } from '../../../src/observability/logger';

/** An admin over a cluster that holds `existing` (topic → partitions); records what it creates. */
function fakeAdmin(existing: Record<string, number>) {
  const created: ITopicConfig[] = [];
  const partitionsOf = (topic: string) =>
    existing[topic] ?? created.find((t) => t.topic === topic)?.numPartitions ?? 0;
  const admin = {
    listTopics: async () => Object.keys(existing),
    createTopics: async ({ topics }: { topics: ITopicConfig[] }) => {
      created.push(...topics);
      return true;
    },
    fetchTopicMetadata: async ({ topics }: { topics: string[] }) => ({
      topics: topics.map((name) => ({
        name,
        partitions: Array.from({ length: partitionsOf(name) }, (_, partitionId) => ({
          partitionId,
          leader: 1,
        })),
      })),
    }),
  } as unknown as Admin;
  return { admin, created };
}

const ensure = (admin: Admin, replicationFactor = -1) =>
  ensureTopics({
    admin,
    prefix: 'hookline',
    defaultPartitions: 6,
    replicationFactor,
    retryScheduleMs: [10_000],
    logger: silentLogger(),
  });

describe('ensureTopics', () => {
  const names = topicNames('hookline');
  const partitions = (created: ITopicConfig[], topic: string) =>
    created.find((t) => t.topic === topic)?.numPartitions;

  it('creates the audience topics with as many partitions as an existing hookline.events', async () => {
    // Events created with 12 partitions (an earlier default, or grown since): audience topics made
    // with the default 6 made the audiences role refuse to start, on every start.
    const { admin, created } = fakeAdmin({ [names.events]: 12 });
    await ensure(admin);
    expect(partitions(created, names.audienceState)).toBe(12);
    expect(partitions(created, names.audienceCommands)).toBe(12);
    expect(partitions(created, names.deliveries)).toBe(6);
  });

  it('creates everything with the default when nothing exists', async () => {
    const { admin, created } = fakeAdmin({});
    await ensure(admin);
    expect(partitions(created, names.events)).toBe(6);
    expect(partitions(created, names.audienceState)).toBe(6);
    expect(partitions(created, names.audienceCommands)).toBe(6);
    expect(partitions(created, names.catalog)).toBe(1);
  });

  it.each([
    [-1, undefined],
    [1, undefined],
    [2, undefined],
    [3, '2'],
    [5, '2'],
  ])('replication factor %i: min.insync.replicas %s', (factor, expected) => {
    expect(minInsyncReplicasFor(factor)).toBe(expected);
  });

  it('creates every topic with min.insync.replicas 2 at a replication factor of 3', async () => {
    const { admin, created } = fakeAdmin({});
    await ensure(admin, 3);
    expect(created.length).toBeGreaterThan(0);
    for (const t of created) {
      expect(t.replicationFactor).toBe(3);
      expect(t.configEntries).toContainEqual({ name: 'min.insync.replicas', value: '2' });
    }
  });
});
