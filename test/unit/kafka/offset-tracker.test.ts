import { MAX_DONE_SPAN, PartitionOffsets } from '../../../src/kafka/offset-tracker';
import { MAX_METADATA_CHARS, RELEASED_METADATA } from '../../../src/kafka/commit-holes';

/** The commit as `offset` or `offset h<holes>` (undefined: nothing new to commit). */
function pending(p: PartitionOffsets): string | undefined {
  const c = p.pendingCommit();
  return c && (c.metadata ? `${c.offset} ${c.metadata}` : String(c.offset));
}

describe('PartitionOffsets', () => {
  it.each([
    // [tracked, completed in this order, commit after each completion]
    [
      [10, 11, 12],
      [10, 11, 12],
      ['11', '12', '13'],
    ],
    // 10 and 11 in flight when 12 completes: committed past them, both listed as holes
    [
      [10, 11, 12],
      [12, 11, 10],
      ['13 h1:2,1', '13 h1:3', '13'],
    ],
    [
      [10, 11, 12],
      [11, 10, 12],
      ['12 h1:2', '12', '13'],
    ],
    // gaps from compaction or transactions: offsets need not be consecutive
    [
      [5, 9, 40],
      [9, 5, 40],
      ['10 h1:5', '10', '41'],
    ],
  ])('tracked %j, completed %j → commits %j', (tracked, completed, expected) => {
    const p = new PartitionOffsets();
    tracked.forEach((o) => p.track(o));
    const seen = completed.map((o) => {
      p.complete(o);
      return pending(p);
    });
    expect(seen).toEqual(expected);
  });

  it('commits past an offset still in flight, listing it as a hole', () => {
    const p = new PartitionOffsets();
    for (let o = 0; o < 5_000; o++) p.track(o);
    for (let o = 1; o < 5_000; o++) p.complete(o);
    expect(p.pendingCommit()).toEqual({ offset: 5_000, metadata: `h1:${(5_000).toString(36)}` });
    expect(p.inFlight).toBe(1);
    p.complete(0);
    expect(p.pendingCommit()).toEqual({ offset: 5_000, metadata: null });
    expect(p.inFlight).toBe(0);
  });

  it('lists the holes that fit the metadata limit: the commit point stops at the first that does not', () => {
    const p = new PartitionOffsets();
    for (let o = 0; o < 5_000; o++) p.track(o);
    for (let o = 1; o < 5_000; o += 2) p.complete(o); // 0, 2, 4, ... in flight
    const commit = p.pendingCommit()!;
    const holes = commit.metadata!.split(',').length;
    expect(commit.metadata!.length).toBeLessThanOrEqual(MAX_METADATA_CHARS);
    expect(holes).toBeGreaterThan(1_700); // 2 characters each
    expect(commit.offset).toBe(2 * holes); // one past the last done before the first left out
  });

  it('reports a commit once until it changes again', () => {
    const p = new PartitionOffsets();
    p.track(1);
    p.track(2);
    p.complete(1);
    expect(pending(p)).toBe('2');
    p.markCommitted(p.pendingCommit()!);
    expect(p.pendingCommit()).toBeUndefined();
    p.complete(2);
    expect(pending(p)).toBe('3');
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

describe('PartitionOffsets.restored (a partition taken over with holes)', () => {
  it('handles only the holes below the committed offset, and commits as they complete', () => {
    const p = PartitionOffsets.restored({ offset: 20, holes: [12, 15] });
    expect(p.pendingCommit()).toBeUndefined(); // what is committed already
    expect(p.inFlight).toBe(2);
    expect([11, 12, 13, 15, 19, 20].map((o) => p.has(o))).toEqual([true, false, true, false, true, false]);
    p.track(12);
    p.track(15);
    expect(() => p.track(14)).toThrow(/out of order/);
    p.track(20);
    expect(p.has(12)).toBe(true);
    p.complete(15);
    expect(pending(p)).toBe('20 h1:8');
    p.complete(20);
    expect(pending(p)).toBe('21 h1:9');
    p.complete(12);
    expect(pending(p)).toBe('21');
    expect(p.inFlight).toBe(0);
  });

  it('takes a hole right below the committed offset as one (no stand-in for the rest there)', () => {
    const p = PartitionOffsets.restored({ offset: 10, holes: [4, 9] });
    expect([3, 4, 8, 9, 10].map((o) => p.has(o))).toEqual([true, false, true, false, false]);
    p.track(4);
    p.track(9);
    p.complete(9);
    expect(pending(p)).toBe('10 h1:6');
    p.complete(4);
    expect(pending(p)).toBe('10');
  });
});

describe('PartitionOffsets.releaseCommit (giving the partition up)', () => {
  it('releases only once nothing is open, at the commit point, once', () => {
    const p = new PartitionOffsets();
    p.track(1);
    p.track(2);
    p.complete(2);
    expect(p.running).toBe(1);
    expect(p.releaseCommit()).toBeUndefined();
    p.complete(1);
    const release = p.releaseCommit()!;
    expect(release).toEqual({ offset: 3, metadata: RELEASED_METADATA });
    p.markCommitted(release);
    expect(p.releaseCommit()).toBeUndefined();
  });

  it('counts restored holes as open but not running until fetched again', () => {
    const p = PartitionOffsets.restored({ offset: 10, holes: [4] });
    expect([p.inFlight, p.running]).toEqual([1, 0]);
    expect(p.releaseCommit()).toBeUndefined();
    p.track(4);
    expect([p.inFlight, p.running]).toEqual([1, 1]);
    p.complete(4);
    expect(p.releaseCommit()).toEqual({ offset: 10, metadata: RELEASED_METADATA });
  });

  it('releases a partition taken over and left untouched at its committed offset', () => {
    expect(PartitionOffsets.restored({ offset: 10, holes: [] }).releaseCommit()).toEqual({
      offset: 10,
      metadata: RELEASED_METADATA,
    });
  });
});

describe('PartitionOffsets.adopt (a partition back in the same process)', () => {
  /** Offsets 3..14 fetched here; all done but 7 and 12, still running. */
  function earlier(): PartitionOffsets {
    const p = new PartitionOffsets();
    for (let o = 3; o <= 14; o++) p.track(o);
    for (let o = 3; o <= 14; o++) if (o !== 7 && o !== 12) p.complete(o);
    return p;
  }

  it('does not hand out again what this process did or is doing, and completes it when it does', () => {
    const previous = earlier();
    const p = PartitionOffsets.restored({ offset: 10, holes: [4, 7] });
    p.adopt(previous);
    expect([4, 7, 10, 12, 14, 15].map((o) => p.has(o))).toEqual([true, true, true, true, true, false]);
    expect(p.firstUnstarted()).toBeUndefined(); // no hole left to fetch again
    expect(pending(p)).toBe('15 h1:3,5'); // 12 and 7 still in flight here
    previous.complete(7);
    expect(pending(p)).toBe('15 h1:3');
    previous.complete(12);
    expect(pending(p)).toBe('15');
    p.track(15);
    expect(p.inFlight).toBe(1);
  });

  it('takes nothing it cannot vouch for: offsets the earlier tracker never saw are handled', () => {
    const previous = new PartitionOffsets();
    for (let o = 20; o <= 25; o++) previous.track(o);
    for (let o = 20; o <= 25; o++) previous.complete(o);
    const p = PartitionOffsets.restored({ offset: 10, holes: [5] });
    p.adopt(previous);
    expect(p.firstUnstarted()).toBe(5);
    expect([5, 10, 20].map((o) => p.has(o))).toEqual([false, false, false]);
  });
});

describe('PartitionOffsets.unstart (work handed out but never started)', () => {
  it('makes the offset a hole to fetch again, committed below it, until it is handed out anew', () => {
    const p = new PartitionOffsets();
    for (const o of [5, 6, 7]) p.track(o);
    p.complete(5);
    p.complete(7);
    p.unstart(6);
    expect(p.has(6)).toBe(false);
    expect(p.firstUnstarted()).toBe(6);
    expect(p.running).toBe(0);
    expect(p.releaseCommit()).toBeUndefined(); // open: the next owner must handle it
    expect(pending(p)).toBe('8 h1:2'); // 6, two below 8
    p.track(6); // fetched again
    expect(p.firstUnstarted()).toBeUndefined();
    p.complete(6);
    expect(pending(p)).toBe('8');
  });

  it('ignores offsets done or unknown', () => {
    const p = new PartitionOffsets();
    p.track(1);
    p.complete(1);
    p.unstart(1);
    p.unstart(9);
    expect(p.firstUnstarted()).toBeUndefined();
    expect(pending(p)).toBe('2');
  });

  it('reaches the tracker that adopted this one', () => {
    const previous = new PartitionOffsets();
    for (const o of [3, 4]) previous.track(o);
    const p = PartitionOffsets.restored({ offset: 3, holes: [] });
    p.adopt(previous);
    expect(previous.latest()).toBe(p);
    previous.unstart(4);
    expect(p.firstUnstarted()).toBe(4);
    expect(p.has(3)).toBe(true); // still running there
  });
});

describe('PartitionOffsets.doneBefore (what a crashed previous owner finished)', () => {
  it('counts the listed offsets done and fetches every other one again', () => {
    const p = PartitionOffsets.restored({ offset: 10, holes: [4, 7] });
    expect(p.doneBefore([7, 10, 11, 13, 2])).toBe(4); // 2: below the offset, not a hole: done already
    expect([4, 7, 10, 11, 12, 13, 14].map((o) => p.has(o))).toEqual([
      false,
      true,
      true,
      true,
      false,
      true,
      false,
    ]);
    expect(p.firstUnstarted()).toBe(4);
    expect(pending(p)).toBe('14 h1:2,8'); // 12 and 4 left to do
    p.track(4);
    p.complete(4);
    p.track(12);
    p.complete(12);
    expect(pending(p)).toBe('14');
    p.track(14);
    expect(p.inFlight).toBe(1);
  });

  it('leaves out what lies more than MAX_DONE_SPAN past the committed offset (handled again)', () => {
    const p = PartitionOffsets.restored({ offset: 10, holes: [] });
    expect(p.doneBefore([12, 10 + MAX_DONE_SPAN - 1, 10 + MAX_DONE_SPAN])).toBe(2);
    expect(p.has(12)).toBe(true);
    expect(p.has(10 + MAX_DONE_SPAN - 1)).toBe(true);
    expect(p.has(10 + MAX_DONE_SPAN)).toBe(false);
    expect(p.firstUnstarted()).toBe(10);
  });

  it('changes nothing when nothing is listed', () => {
    const p = PartitionOffsets.restored({ offset: 10, holes: [4] });
    expect(p.doneBefore([])).toBe(0);
    expect(p.firstUnstarted()).toBe(4);
    expect(p.has(10)).toBe(false);
  });
});

describe('PartitionOffsets.passUnfetched (offsets a fetch passed without handing them out)', () => {
  it('counts a listed offset the fetch passed as done: a transaction marker is no hole for good', () => {
    const p = PartitionOffsets.restored({ offset: 10, holes: [] });
    p.doneBefore([10, 12]); // 11: a transaction's commit marker, which no fetch hands out
    expect(pending(p)).toBe('13 h1:2');
    // The fetch from 11 hands out 12 (done already) and 13.
    expect(p.passUnfetched(11, 12)).toBe(true);
    p.track(13);
    p.complete(13);
    expect(pending(p)).toBe('14');
    expect(p.inFlight).toBe(0);
    expect(p.releaseCommit()).toEqual({ offset: 14, metadata: RELEASED_METADATA });
  });

  it('leaves listed offsets outside the range, and handed-out ones, alone; wide gaps too', () => {
    const p = PartitionOffsets.restored({ offset: 200, holes: [3, 150] });
    p.track(3); // handed out, running
    expect(p.passUnfetched(0, 100)).toBe(false); // 3 is running: its own work completes it
    expect(p.passUnfetched(151, 199)).toBe(false);
    expect(p.firstUnstarted()).toBe(150);
    expect(p.passUnfetched(100, 199)).toBe(true); // a wide gap: looked for in the window
    expect(p.firstUnstarted()).toBeUndefined();
    expect(pending(p)).toBe('200 h1:5h'); // 3 still in flight
  });
});

describe('PartitionOffsets.resumeAt (where fetching goes on)', () => {
  it.each([
    ['nothing handed out yet', () => new PartitionOffsets(), undefined],
    [
      'after the last handed out',
      () => {
        const p = new PartitionOffsets();
        for (const o of [3, 4, 5]) p.track(o);
        p.complete(4);
        return p;
      },
      6,
    ],
    ['at a restored hole', () => PartitionOffsets.restored({ offset: 10, holes: [4] }), 4],
    [
      'at the committed offset of a partition taken over',
      () => PartitionOffsets.restored({ offset: 10, holes: [] }),
      10,
    ],
    [
      'at an offset taken back (never started)',
      () => {
        const p = new PartitionOffsets();
        for (const o of [3, 4, 5]) p.track(o);
        p.unstart(4);
        return p;
      },
      4,
    ],
  ])('%s', (_, make, expected) => {
    expect(make().resumeAt()).toBe(expected);
  });
});
