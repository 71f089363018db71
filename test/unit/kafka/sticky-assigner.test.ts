import { AssignerProtocol, type Cluster } from 'kafkajs';
import {
  assignSticky,
  heldOf,
  ownedOf,
  stickyAssigner,
  type StickyMember,
} from '../../../src/kafka/sticky-assigner';

const topic = 't';
const partitions = { [topic]: [0, 1, 2] };
const sorted = (m: Map<string, Record<string, number[]>>) =>
  Object.fromEntries([...m].map(([id, a]) => [id, (a[topic] ?? []).sort()]));

describe('assignSticky', () => {
  it('a member joining takes only what the others must give up', () => {
    const a = { memberId: 'a', owned: { [topic]: [0, 1, 2] } };
    expect(sorted(assignSticky([a, { memberId: 'b', owned: {} }], partitions))).toEqual({
      a: [0, 1],
      b: [2],
    });
  });

  it('keeps the partitions a member lists first (its busiest) when it must give some up', () => {
    const a = { memberId: 'a', owned: { [topic]: [2, 0, 1] } };
    expect(sorted(assignSticky([a, { memberId: 'b', owned: {} }], partitions))).toEqual({
      a: [0, 2],
      b: [1],
    });
  });

  it('keeps every member on its partitions when a restarted member comes back empty-handed', () => {
    const owned: StickyMember[] = [
      { memberId: 'survivor', owned: { [topic]: [1] } },
      { memberId: 'dead', owned: { [topic]: [0, 2] } }, // not yet expired
      { memberId: 'new', owned: {} },
    ];
    expect(sorted(assignSticky(owned, partitions))).toEqual({ survivor: [1], dead: [0], new: [2] });
  });

  it('gives the partitions of a member that left to the others, the rest staying put', () => {
    const owned: StickyMember[] = [
      { memberId: 'a', owned: { [topic]: [0] } },
      { memberId: 'b', owned: { [topic]: [1] } },
    ];
    const result = sorted(assignSticky(owned, { [topic]: [0, 1, 2, 3] }));
    expect(result).toEqual({ a: [0, 2], b: [1, 3] });
  });

  it('stays balanced, ignores partitions that no longer exist and claims made twice', () => {
    const owned: StickyMember[] = [
      { memberId: 'a', owned: { [topic]: [0, 1, 2, 9] } },
      { memberId: 'b', owned: { [topic]: [0] } },
      { memberId: 'c', owned: {} },
    ];
    const result = sorted(assignSticky(owned, { [topic]: [0, 1, 2, 3] }));
    expect(result.a).toEqual([0, 1]);
    expect([...result.b!, ...result.c!].sort()).toEqual([2, 3]);
    expect(result.b).toHaveLength(1);
  });
});

describe('stickyAssigner join metadata', () => {
  const metadataOf = (owned: { topic: string; partition: number }[], retiring: string[]) =>
    stickyAssigner(
      () => owned,
      () => retiring,
    )({ cluster: {} as Cluster, groupId: 'g', logger: {} as never }).protocol({ topics: ['t'] }).metadata;

  it('tells what the member holds, and apart from it what it is still finishing', () => {
    const metadata = metadataOf([{ topic: 't', partition: 1 }], ['t:4', 'u:0']);
    expect(ownedOf(metadata)).toEqual({ t: [1] }); // what the assignment keeps in place
    expect(heldOf(metadata)).toEqual({ t: [1, 4], u: [0] }); // whose release a new owner waits for
  });

  it('reads the metadata of a member of an earlier version (owned partitions only)', () => {
    const earlier = AssignerProtocol.MemberMetadata.encode({
      version: 1,
      topics: ['t'],
      userData: Buffer.from(JSON.stringify({ t: [2, 3] })),
    });
    expect(ownedOf(earlier)).toEqual({ t: [2, 3] });
    expect(heldOf(earlier)).toEqual({ t: [2, 3] });
  });

  it('takes garbled metadata as holding nothing', () => {
    const garbled = AssignerProtocol.MemberMetadata.encode({
      version: 1,
      topics: [],
      userData: Buffer.from('{'),
    });
    expect(heldOf(garbled)).toEqual({});
  });
});
