import type { Admin } from 'kafkajs';
import { decodeHoles, RELEASED_METADATA, type CommitPoint } from './commit-holes';

/** A committed offset with its holes, and whether the member that wrote it released the partition. */
export interface CommittedPoint extends CommitPoint {
  released: boolean;
}

/**
 * A group's committed offset of one partition, with the holes its metadata lists (commit-holes.ts);
 * undefined when the group has committed nothing there.
 */
export async function committedPoint(
  admin: Admin,
  groupId: string,
  topic: string,
  partition: number,
): Promise<CommittedPoint | undefined> {
  const [entry] = await admin.fetchOffsets({ groupId, topics: [topic] });
  const committed = entry?.partitions.find((p) => p.partition === partition);
  const offset = Number(committed?.offset ?? -1);
  if (!committed || offset < 0) return undefined;
  return {
    offset,
    holes: decodeHoles(offset, committed.metadata),
    released: committed.metadata === RELEASED_METADATA,
  };
}

/**
 * Where a consumer reading from the beginning starts a partition its group never committed: its
 * log start offset; undefined when the partition holds no record.
 */
export async function logStart(admin: Admin, topic: string, partition: number): Promise<number | undefined> {
  const offsets = await admin.fetchTopicOffsets(topic);
  const p = offsets.find((o) => o.partition === partition);
  if (!p || Number(p.high) <= Number(p.low)) return undefined;
  return Number(p.low);
}
