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
  admin: Pick<Admin, 'fetchOffsets'>,
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
 * The point to take a partition over from: the group's committed point or, with `fromLogStart`,
 * for a partition the group never committed that holds records, its log start offset (where a
 * consumer reading from the beginning starts it) as a point nobody released. A previous owner
 * that crashed before its first commit there is then waited for and looked up (awaitRelease,
 * trackerFrom) like one that crashed later, instead of its work being done again whole.
 */
export async function takeOverPoint(
  admin: Pick<Admin, 'fetchOffsets' | 'fetchTopicOffsets'>,
  groupId: string,
  topic: string,
  partition: number,
  fromLogStart: boolean,
): Promise<CommittedPoint | undefined> {
  const committed = await committedPoint(admin, groupId, topic, partition);
  if (committed || !fromLogStart) return committed;
  const offsets = await admin.fetchTopicOffsets(topic);
  const p = offsets.find((o) => o.partition === partition);
  // Stale metadata (partitions just added): an error, so that the read is tried again.
  if (!p) throw new Error(`no offsets for ${topic} partition ${partition}`);
  if (Number(p.high) <= Number(p.low)) return undefined; // empty: nothing to take over
  return { offset: Number(p.low), holes: [], released: false };
}
