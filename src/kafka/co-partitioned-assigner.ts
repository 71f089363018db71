import { AssignerProtocol, type PartitionAssigner } from './kafkajs';

/**
 * Which partitions each member gets when partition `n` of every topic must go to the same member
 * (topics partitioned alike, e.g. hookline.events and hookline.audience-commands: the owner of a
 * user's events is the owner of the commands about that user). Partition numbers are dealt
 * round-robin over the members sorted by id.
 */
export function coPartitionedAssignment(
  memberIds: string[],
  partitionsByTopic: Record<string, number[]>,
): Record<string, Record<string, number[]>> {
  const members = [...memberIds].sort();
  const out: Record<string, Record<string, number[]>> = {};
  for (const m of members) out[m] = {};
  if (members.length === 0) return out;
  for (const [topic, partitions] of Object.entries(partitionsByTopic)) {
    for (const p of [...partitions].sort((a, b) => a - b)) {
      const member = out[members[p % members.length]!]!;
      (member[topic] ??= []).push(p);
    }
  }
  return out;
}

/** A kafkajs assigner giving partition n of every subscribed topic to one member (see above). */
export const CoPartitionedAssigner: PartitionAssigner = ({ cluster }) => ({
  name: 'HooklineCoPartitioned',
  version: 0,
  async assign({ members, topics }) {
    const partitionsByTopic: Record<string, number[]> = {};
    for (const topic of topics) {
      partitionsByTopic[topic] = cluster.findTopicPartitionMetadata(topic).map((m) => m.partitionId);
    }
    const assignment = coPartitionedAssignment(
      members.map((m) => m.memberId),
      partitionsByTopic,
    );
    return Object.entries(assignment).map(([memberId, topicsOf]) => ({
      memberId,
      memberAssignment: AssignerProtocol.MemberAssignment.encode({
        version: 0,
        assignment: topicsOf,
        userData: Buffer.alloc(0),
      }),
    }));
  },
  protocol({ topics }) {
    return {
      name: 'HooklineCoPartitioned',
      metadata: AssignerProtocol.MemberMetadata.encode({ version: 0, topics, userData: Buffer.alloc(0) }),
    };
  },
});
