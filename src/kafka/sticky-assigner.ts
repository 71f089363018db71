import { AssignerProtocol, type Assignment, type PartitionAssigner } from './kafkajs';

/** The assigner's (the group protocol's) name. */
export const STICKY_PROTOCOL = 'HooklineStickyAssigner';

/** A group member as the sticky policy sees it: its id and the partitions it holds now. */
export interface StickyMember {
  memberId: string;
  owned: Assignment;
}

/**
 * Sticky and balanced, as a pure function: every member gets ⌊n/m⌋ or ⌈n/m⌉ of the n partitions,
 * and keeps as many of those it holds now as that allows, in the order it lists them (the consumer
 * lists its busiest first: a partition that moves costs its in-flight work); members holding more
 * are served first, so they keep the larger share. A partition no member keeps goes to the member with the fewest.
 *
 * Why: after a rebalance (a worker joins, restarts or dies) kafkajs's round robin reshuffles every
 * partition. A partition that moves is read again by its new owner from the committed offset, while
 * its old owner may still finish the same work: both deliver it (duplicates). Staying put, a member
 * keeps its partitions' offsets tracker and only the partitions of the member that left move.
 */
export function assignSticky(
  members: readonly StickyMember[],
  partitions: Assignment,
): Map<string, Assignment> {
  const all = new Set(Object.entries(partitions).flatMap(([t, ps]) => ps.map((p) => `${t}:${p}`)));
  const ordered = [...members].sort(
    (a, b) => count(b.owned) - count(a.owned) || a.memberId.localeCompare(b.memberId),
  );
  const base = Math.floor(all.size / Math.max(1, ordered.length));
  const extra = all.size % Math.max(1, ordered.length);
  const quota = new Map(ordered.map((m, i) => [m.memberId, base + (i < extra ? 1 : 0)]));
  const result = new Map<string, string[]>(ordered.map((m) => [m.memberId, []]));
  const taken = new Set<string>();
  for (const m of ordered) {
    const mine = result.get(m.memberId)!;
    for (const [topic, ps] of Object.entries(m.owned)) {
      for (const p of ps) {
        const key = `${topic}:${p}`;
        if (!all.has(key) || taken.has(key) || mine.length >= quota.get(m.memberId)!) continue;
        mine.push(key);
        taken.add(key);
      }
    }
  }
  for (const key of [...all].sort()) {
    if (taken.has(key)) continue;
    const open = ordered.filter((m) => result.get(m.memberId)!.length < quota.get(m.memberId)!);
    const to = open.sort((a, b) => result.get(a.memberId)!.length - result.get(b.memberId)!.length)[0];
    if (!to) break;
    result.get(to.memberId)!.push(key);
    taken.add(key);
  }
  return new Map([...result].map(([id, keys]) => [id, toAssignment(keys)]));
}

/** How a group other than the consumers' uses the sticky assigner. */
export interface StickyAssignerNaming {
  /** The group protocol's name; STICKY_PROTOCOL by default. */
  name?: string;
  /** Told in the member's join metadata (`advertisedUrlOf`): where it answers, for the others. */
  advertisedUrl?: string;
}

/**
 * The kafkajs assigner of `assignSticky`: each member tells the partitions it holds (`owned()`, in
 * its join metadata), and the group leader keeps them where they are.
 */
export function stickyAssigner(
  owned: () => readonly { topic: string; partition: number }[],
  /** Partitions given up and still being finished (`<topic>:<partition>`; handover.ts). */
  retiring: () => readonly string[] = () => [],
  naming: StickyAssignerNaming = {},
): PartitionAssigner {
  const name = naming.name ?? STICKY_PROTOCOL;
  return ({ cluster }) => ({
    name,
    version: 1,
    async assign({ members, topics }) {
      const partitions: Assignment = {};
      for (const topic of topics)
        partitions[topic] = cluster.findTopicPartitionMetadata(topic).map((m) => m.partitionId);
      const assigned = assignSticky(
        members.map((m) => ({ memberId: m.memberId, owned: ownedOf(m.memberMetadata) })),
        partitions,
      );
      return [...assigned].map(([memberId, assignment]) => ({
        memberId,
        memberAssignment: AssignerProtocol.MemberAssignment.encode({
          version: 1,
          assignment,
          userData: Buffer.alloc(0),
        }),
      }));
    },
    protocol({ topics }) {
      return {
        name,
        metadata: AssignerProtocol.MemberMetadata.encode({
          version: 1,
          topics,
          userData: Buffer.from(
            JSON.stringify({
              ...toAssignment(owned().map((o) => `${o.topic}:${o.partition}`)),
              [RETIRING_KEY]: toAssignment([...retiring()]),
              ...(naming.advertisedUrl !== undefined && { [URL_KEY]: naming.advertisedUrl }),
            }),
          ),
        }),
      };
    },
  });
}

/**
 * Where a member's join metadata lists the partitions it is still finishing after giving them up:
 * not a topic name (Kafka's allow only letters, digits, '.', '_' and '-'), and not a list, which
 * members of earlier versions skip.
 */
const RETIRING_KEY = '~retiring';
/** Where a member's join metadata tells its advertised URL (`StickyAssignerNaming`). */
const URL_KEY = '~url';

/** The URL a member advertised when it joined (`StickyAssignerNaming`), if any. */
export function advertisedUrlOf(metadata: Buffer): string | undefined {
  const url = userDataOf(metadata)[URL_KEY];
  return typeof url === 'string' && url.length > 0 ? url : undefined;
}

/** What a member said it held when it joined (its subscription's user data); {} when it says nothing. */
export function ownedOf(metadata: Buffer): Assignment {
  return assignmentIn(userDataOf(metadata));
}

/**
 * What a member said it held or was still finishing (retiring) when it joined: the partitions
 * whose new owner should wait for its release (handover.ts).
 */
export function heldOf(metadata: Buffer): Assignment {
  const userData = userDataOf(metadata);
  const held = assignmentIn(userData);
  for (const [topic, ps] of Object.entries(assignmentIn(userData[RETIRING_KEY])))
    held[topic] = [...(held[topic] ?? []), ...ps];
  return held;
}

function userDataOf(metadata: Buffer): Record<string, unknown> {
  try {
    const { userData } = AssignerProtocol.MemberMetadata.decode(metadata)!;
    const parsed = JSON.parse(userData.toString('utf8') || '{}') as unknown;
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {}; // a member that tells nothing (or garbles it) simply keeps nothing
  }
}

function assignmentIn(value: unknown): Assignment {
  if (typeof value !== 'object' || value === null) return {};
  const out: Assignment = {};
  for (const [topic, ps] of Object.entries(value))
    if (Array.isArray(ps)) out[topic] = ps.filter((p): p is number => Number.isInteger(p));
  return out;
}

function count(a: Assignment): number {
  return Object.values(a).reduce((n, ps) => n + ps.length, 0);
}

function toAssignment(keys: string[]): Assignment {
  const out: Assignment = {};
  for (const key of keys) {
    const i = key.lastIndexOf(':');
    (out[key.slice(0, i)] ??= []).push(Number(key.slice(i + 1)));
  }
  return out;
}
