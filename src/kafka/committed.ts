import type { Admin } from 'kafkajs';
import { decodeHoles, type CommitPoint } from './commit-holes';

/**
 * A group's committed offset of one partition, with the holes its metadata lists (commit-holes.ts);
 * undefined when the group has committed nothing there.
 */
export async function committedPoint(
  admin: Admin,
  groupId: string,
  topic: string,
  partition: number,
): Promise<CommitPoint | undefined> {
  const [entry] = await admin.fetchOffsets({ groupId, topics: [topic] });
  const committed = entry?.partitions.find((p) => p.partition === partition);
  const offset = Number(committed?.offset ?? -1);
  if (!committed || offset < 0) return undefined;
  return { offset, holes: decodeHoles(offset, committed.metadata) };
}
