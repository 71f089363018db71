import type { Admin, GroupDescription } from 'kafkajs';
import { heldOf, STICKY_PROTOCOL } from './sticky-assigner';

/**
 * Whether no member of the group (as DescribeGroups tells it) but `selfMemberId` said, when it
 * joined, that it held the partition or was still finishing it (the sticky assigner's user data,
 * see `heldOf`). False for a group on another protocol (a member of an older version): what they
 * held is not known.
 */
export function partitionOrphaned(
  group: GroupDescription | undefined,
  selfMemberId: string | undefined,
  topic: string,
  partition: number,
): boolean {
  if (!group || group.protocol !== STICKY_PROTOCOL) return false;
  return !group.members.some(
    (m) => m.memberId !== selfMemberId && (heldOf(m.memberMetadata)[topic] ?? []).includes(partition),
  );
}

/** The group as DescribeGroups tells it, read once for all the takeovers of a join (`reset` at each). */
export class GroupView {
  private described: Promise<GroupDescription | undefined> | undefined;

  constructor(
    private readonly admin: Admin,
    private readonly groupId: string,
  ) {}

  reset(): void {
    this.described = undefined;
  }

  /** `partitionOrphaned` in the group as of this join. */
  async orphaned(selfMemberId: string | undefined, topic: string, partition: number): Promise<boolean> {
    this.described ??= this.admin.describeGroups([this.groupId]).then(({ groups }) => groups[0]);
    return partitionOrphaned(await this.described, selfMemberId, topic, partition);
  }
}
