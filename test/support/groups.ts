import { AssignerProtocol, Kafka, logLevel, type Admin } from 'kafkajs';

/** A consumer group as the broker describes it: its state and who holds which partitions. */
export interface GroupView {
  state: string;
  members: { memberId: string; clientId: string; partitions: string[] }[];
}

/** An admin client on the test cluster, for looking at consumer groups. */
export async function groupAdmin(): Promise<Admin> {
  const kafka = new Kafka({
    clientId: 'test-groups',
    brokers: process.env.KAFKA_BROKERS!.split(','),
    logLevel: logLevel.NOTHING,
  });
  const admin = kafka.admin();
  await admin.connect();
  return admin;
}

/** The group's members and their assigned partitions (`topic:partition`). */
export async function describeGroup(admin: Admin, groupId: string): Promise<GroupView> {
  const { groups } = await admin.describeGroups([groupId]);
  const group = groups[0]!;
  return {
    state: group.state,
    members: group.members.map((m) => {
      const decoded = AssignerProtocol.MemberAssignment.decode(m.memberAssignment);
      const partitions = Object.entries(decoded?.assignment ?? {}).flatMap(([topic, parts]) =>
        parts.map((p) => `${topic}:${p}`),
      );
      return { memberId: m.memberId, clientId: m.clientId, partitions: partitions.sort() };
    }),
  };
}

/** Every partition the group's members hold, sorted. */
export function assignedPartitions(view: GroupView): string[] {
  return view.members.flatMap((m) => m.partitions).sort();
}
