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

/**
 * The group as DescribeGroups tells it, read once for all the takeovers of a join (`reset` at each).
 *
 * A join that follows this member's own crash (kafkajs gave its consumer up, as during a broker
 * outage) counts no partition as orphaned: the other members' consumers may have crashed in the
 * same outage and not be back yet, so "no member says it holds the partition" does not mean its
 * owner is gone. The takeover then waits the handover grace, time for that owner to rejoin, say
 * what it is still finishing and release it, or at least for the attempt records of its last
 * deliveries to land. Otherwise the first process back after a broker restart takes over at once
 * the partitions of another, alive but slower to rejoin, and delivers its last events again.
 */
export class GroupView {
  private described: Promise<GroupDescription | undefined> | undefined;
  private afterOwnCrash = false;

  constructor(
    private readonly admin: Admin,
    private readonly groupId: string,
  ) {}

  /** A new join; `afterOwnCrash`: this member's consumer crashed since its previous join. */
  reset(afterOwnCrash = false): void {
    this.described = undefined;
    this.afterOwnCrash = afterOwnCrash;
  }

  /** `partitionOrphaned` in the group as of this join; never right after this member's own crash. */
  async orphaned(selfMemberId: string | undefined, topic: string, partition: number): Promise<boolean> {
    if (this.afterOwnCrash) return false;
    this.described ??= this.admin.describeGroups([this.groupId]).then(({ groups }) => groups[0]);
    return partitionOrphaned(await this.described, selfMemberId, topic, partition);
  }
}
