import { assignSticky, type StickyMember } from '../../../src/kafka/sticky-assigner';

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
