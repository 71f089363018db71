import { PartitionOffsets } from '../../../src/kafka/offset-tracker';

describe('PartitionOffsets', () => {
  it.each([
    // [tracked, completed in this order, committable after each completion]
    [
      [10, 11, 12],
      [10, 11, 12],
      [11, 12, 13],
    ],
    [
      [10, 11, 12],
      [12, 11, 10],
      [undefined, undefined, 13],
    ],
    [
      [10, 11, 12],
      [11, 10, 12],
      [undefined, 12, 13],
    ],
    // gaps from compaction or transactions: offsets need not be consecutive
    [
      [5, 9, 40],
      [9, 5, 40],
      [undefined, 10, 41],
    ],
  ])('tracked %j, completed %j → committable %j', (tracked, completed, expected) => {
    const p = new PartitionOffsets();
    tracked.forEach((o) => p.track(o));
    const seen = completed.map((o) => {
      p.complete(o);
      return p.pendingCommit();
    });
    expect(seen).toEqual(expected);
  });

  it('never commits past an offset still in flight, however many later ones complete', () => {
    const p = new PartitionOffsets();
    for (let o = 0; o < 5_000; o++) p.track(o);
    for (let o = 1; o < 5_000; o++) p.complete(o);
    expect(p.pendingCommit()).toBeUndefined();
    expect(p.inFlight).toBe(1);
    p.complete(0);
    expect(p.pendingCommit()).toBe(5_000);
    expect(p.inFlight).toBe(0);
  });

  it('reports a commit once until the offset moves again', () => {
    const p = new PartitionOffsets();
    p.track(1);
    p.track(2);
    p.complete(1);
    expect(p.pendingCommit()).toBe(2);
    p.markCommitted(2);
    expect(p.pendingCommit()).toBeUndefined();
    p.complete(2);
    expect(p.pendingCommit()).toBe(3);
  });

  it('ignores completing unknown or already completed offsets', () => {
    const p = new PartitionOffsets();
    p.track(1);
    expect(p.complete(7)).toBe(false);
    expect(p.complete(1)).toBe(true);
    expect(p.complete(1)).toBe(false);
  });

  it('refuses offsets tracked out of order', () => {
    const p = new PartitionOffsets();
    p.track(3);
    expect(() => p.track(2)).toThrow(/out of order/);
  });
});

describe('PartitionOffsets.has', () => {
  it('recognises offsets re-fetched after a rebalance, in flight or done', () => {
    const p = new PartitionOffsets();
    expect(p.has(0)).toBe(false);
    p.track(3);
    p.track(4);
    p.complete(3);
    expect([2, 3, 4, 5].map((o) => p.has(o))).toEqual([true, true, true, false]);
  });
});
