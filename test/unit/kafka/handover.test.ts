import { AssignerProtocol, type Admin, type GroupDescription } from 'kafkajs';
import { GroupView, partitionOrphaned } from '../../../src/kafka/group-view';
import { STICKY_PROTOCOL } from '../../../src/kafka/sticky-assigner';
import { RELEASED_METADATA } from '../../../src/kafka/commit-holes';
import type { CommittedPoint } from '../../../src/kafka/committed';
import {
  awaitRelease,
  PartitionTrackers,
  trackerFrom,
  type TrackerCommit,
} from '../../../src/kafka/handover';
import { PartitionOffsets } from '../../../src/kafka/offset-tracker';
import { silentLogger } from '../../../src/observability/logger';

/** Commits as `key offset [metadata]`, in order. */
const shown = (commits: TrackerCommit[]) =>
  commits.map((c) => `${c.key} ${c.commit.offset}${c.commit.metadata ? ` ${c.commit.metadata}` : ''}`);

function trackerWith(tracked: number[], completed: number[]): PartitionOffsets {
  const t = new PartitionOffsets();
  tracked.forEach((o) => t.track(o));
  completed.forEach((o) => t.complete(o));
  return t;
}

describe('PartitionTrackers (handing partitions over between live members)', () => {
  const GRACE_MS = 2_000;

  it('keeps the partitions still assigned to the same member and retires the others', () => {
    const trackers = new PartitionTrackers(GRACE_MS);
    expect(trackers.assign(['t:0', 't:1'], false, 0)).toEqual(['t:0', 't:1']);
    trackers.set('t:0', trackerWith([5], [5]));
    trackers.set('t:1', trackerWith([7], [7]));
    expect(trackers.assign(['t:0', 't:2'], true, 10)).toEqual(['t:2']);
    expect(trackers.has('t:0')).toBe(true);
    expect(trackers.has('t:1')).toBe(false);
    // t:0 goes on as usual; t:1 had nothing in flight: released at once
    expect(shown(trackers.commits(20))).toEqual(['t:0 6', `t:1 8 ${RELEASED_METADATA}`]);
  });

  it('takes every partition over again when the member left the group meanwhile (a new member id)', () => {
    const trackers = new PartitionTrackers(GRACE_MS);
    trackers.assign(['t:0'], false, 0);
    trackers.set('t:0', trackerWith([5], [5]));
    expect(trackers.assign(['t:0'], false, 10)).toEqual(['t:0']);
    expect(trackers.has('t:0')).toBe(false);
  });

  it('commits a retiring partition as its work completes and releases it once none is in flight', () => {
    const trackers = new PartitionTrackers(GRACE_MS);
    trackers.assign(['t:0'], false, 0);
    const tracker = trackerWith([1, 2, 3], [1, 3]);
    trackers.set('t:0', tracker);
    trackers.assign([], true, 100);
    expect(trackers.retiringKeys()).toEqual(['t:0']); // advertised at the next join (heldOf)
    const first = trackers.commits(200);
    expect(shown(first)).toEqual(['t:0 4 h1:2']); // 2 still in flight: a hole, not released
    trackers.committed(first);
    expect(trackers.commits(300)).toEqual([]);
    tracker.complete(2);
    const release = trackers.commits(400);
    expect(shown(release)).toEqual([`t:0 4 ${RELEASED_METADATA}`]);
    expect(release[0]!.release).toBe(true);
    trackers.committed(release);
    expect(trackers.commits(500)).toEqual([]); // forgotten once released
    expect(trackers.retiringKeys()).toEqual([]);
  });

  it('forgets a retiring partition after the grace, released or not', () => {
    const trackers = new PartitionTrackers(GRACE_MS);
    trackers.assign(['t:0'], false, 0);
    trackers.set('t:0', trackerWith([1, 2], [2]));
    trackers.assign([], true, 1_000);
    expect(shown(trackers.commits(1_000 + GRACE_MS))).toEqual(['t:0 3 h1:2']);
    expect(trackers.commits(1_001 + GRACE_MS)).toEqual([]);
  });

  it('does not release a partition whose only open offsets are holes nobody handles here', () => {
    const trackers = new PartitionTrackers(GRACE_MS);
    trackers.assign(['t:0'], false, 0);
    trackers.set('t:0', PartitionOffsets.restored({ offset: 10, holes: [4] })); // 4 never fetched again
    trackers.retireAll(5);
    expect(trackers.commits(10)).toEqual([]); // its commit stands: 10 with hole 4
  });

  it('lets a partition taken over again commit only through its new tracker', () => {
    const trackers = new PartitionTrackers(GRACE_MS);
    trackers.assign(['t:0'], false, 0);
    trackers.set('t:0', trackerWith([1, 2], [2]));
    trackers.assign([], true, 10);
    expect(trackers.assign(['t:0'], true, 20)).toEqual(['t:0']); // another member may have had it
    trackers.set('t:0', PartitionOffsets.restored({ offset: 30, holes: [] }));
    expect(trackers.commits(30)).toEqual([]);
  });

  it('lets a partition back in this process adopt its earlier tracker, even past the grace', () => {
    const trackers = new PartitionTrackers(GRACE_MS);
    trackers.assign(['t:0'], false, 0);
    const earlier = trackerWith([1, 2, 3], [1, 3]); // 2 still running
    trackers.set('t:0', earlier);
    expect(trackers.assign(['t:0'], false, 10)).toEqual(['t:0']); // rejoined under a new member id
    trackers.commits(20 + GRACE_MS); // past the grace: no longer committed, still remembered
    const taken = PartitionOffsets.restored({ offset: 2, holes: [] });
    trackers.set('t:0', taken);
    expect([2, 3].map((o) => taken.has(o))).toEqual([true, true]); // not handled again
    earlier.complete(2);
    expect(shown(trackers.commits(30 + GRACE_MS))).toEqual(['t:0 4']);
  });

  it('holds a partition owned or retiring, through the tracker that adopted the earlier one', () => {
    const trackers = new PartitionTrackers(GRACE_MS);
    trackers.assign(['t:0'], false, 0);
    const earlier = trackerWith([1, 2], []);
    trackers.set('t:0', earlier);
    expect(trackers.holds('t:0', earlier)).toBe(true);
    trackers.assign([], true, 10);
    expect(trackers.holds('t:0', earlier)).toBe(true); // retiring: its work finishes here
    trackers.commits(11 + GRACE_MS);
    expect(trackers.holds('t:0', earlier)).toBe(false); // past the grace: the successor's
    expect(trackers.assign(['t:0'], false, 20 + GRACE_MS)).toEqual(['t:0']);
    trackers.set('t:0', PartitionOffsets.restored({ offset: 1, holes: [] })); // back: adopted
    expect(trackers.holds('t:0', earlier)).toBe(true);
    expect(trackers.holds('t:1', earlier)).toBe(false);
  });

  it('puts the partitions with the most in flight first', () => {
    const trackers = new PartitionTrackers(GRACE_MS);
    trackers.assign(['t:0', 't:1'], false, 0);
    trackers.set('t:0', trackerWith([1], []));
    trackers.set('t:1', trackerWith([1, 2], []));
    const held = [
      { topic: 't', partition: 0 },
      { topic: 't', partition: 1 },
      { topic: 't', partition: 2 },
    ];
    expect(trackers.busiestFirst(held).map((p) => p.partition)).toEqual([1, 0, 2]);
  });
});

describe('awaitRelease', () => {
  /** Reads answering each of `points` in turn (the last one from then on); time moves 100 ms per sleep. */
  function run(
    points: (CommittedPoint | undefined | Error)[],
    graceMs = 1_000,
    orphaned?: () => Promise<boolean>,
  ) {
    let nowMs = 0;
    let reads = 0;
    const result = awaitRelease({
      ...(orphaned && { orphaned }),
      read: async () => {
        const p = points[Math.min(reads++, points.length - 1)];
        if (p instanceof Error) throw p;
        return p;
      },
      stillOurs: () => true,
      graceMs,
      clock: { now: () => nowMs },
      logger: silentLogger(),
      context: {},
      sleep: async (ms) => void (nowMs += ms),
    });
    return result.then((point) => ({ point, reads, elapsedMs: nowMs }));
  }
  const held = { offset: 10, holes: [4], released: false };
  const released = { offset: 12, holes: [], released: true };

  it.each([
    ['nothing committed yet: at once', [undefined], undefined, 1],
    ['already released: at once', [released], released, 1],
    ['released on the third read', [held, held, released], released, 3],
    ['never released: the last read after the grace', [held], held, 11],
    ['a failed read is tried again', [new Error('broker away'), released], released, 2],
  ])('%s', async (_, points, expected, reads) => {
    const outcome = await run(points);
    expect(outcome.point).toEqual(expected);
    expect(outcome.reads).toBe(reads);
  });

  it.each([
    ['its owner left the group: at once', async () => true, 1],
    ['its owner is still a member: the grace is waited', async () => false, 11],
    [
      'who held it cannot be told: the grace is waited',
      async (): Promise<boolean> => {
        throw new Error('describe failed');
      },
      11,
    ],
  ])('an unreleased partition, %s', async (_, orphaned, reads) => {
    const outcome = await run([held], 1_000, orphaned);
    expect(outcome.point).toEqual(held);
    expect(outcome.reads).toBe(reads);
  });

  it('stops once the partition is no longer ours', async () => {
    let ours = true;
    const point = await awaitRelease({
      read: async () => {
        ours = false;
        return held;
      },
      stillOurs: () => ours,
      graceMs: 1_000,
      clock: { now: () => 0 },
      logger: silentLogger(),
      context: {},
      sleep: async () => undefined,
    });
    expect(point).toBeUndefined();
  });
});

describe('trackerFrom (the tracker of a partition taken over)', () => {
  const logger = silentLogger();
  const where = { topic: 't', partition: 3, logger };

  it('asks what the previous owner finished only when it did not release the partition', async () => {
    const doneBefore = jest.fn(async () => [10, 12]);
    const released = await trackerFrom({ offset: 10, holes: [], released: true }, { ...where, doneBefore });
    expect(doneBefore).not.toHaveBeenCalled();
    expect(released.has(10)).toBe(false);

    const taken = await trackerFrom({ offset: 10, holes: [], released: false }, { ...where, doneBefore });
    expect(doneBefore).toHaveBeenCalledWith('t', 3);
    expect([10, 11, 12].map((o) => taken.has(o))).toEqual([true, false, true]);
    expect(taken.firstUnstarted()).toBe(11);
  });

  it('takes the partition over as before when the look-up fails', async () => {
    const doneBefore = jest.fn(async (): Promise<number[]> => {
      throw new Error('attempts topic unreadable');
    });
    const taken = await trackerFrom({ offset: 10, holes: [4], released: false }, { ...where, doneBefore });
    expect(taken.firstUnstarted()).toBe(4);
    expect(taken.has(10)).toBe(false);
  });

  it('starts a partition never committed from scratch', async () => {
    const doneBefore = jest.fn(async () => [0]);
    const fresh = await trackerFrom(undefined, { ...where, doneBefore });
    expect(doneBefore).not.toHaveBeenCalled();
    expect(fresh.has(0)).toBe(false);
  });

  // takeOverPoint's point for a partition never committed: its start, not released.
  it.each([0, 40])(
    'looks a partition up from its start (%i), as one taken over unreleased',
    async (start) => {
      const doneBefore = jest.fn(async () => [start + 1, start + 3]);
      const point = { offset: start, holes: [], released: false };
      const taken = await trackerFrom(point, { ...where, doneBefore });
      expect(doneBefore).toHaveBeenCalledWith('t', 3);
      expect([0, 1, 2, 3, 4].map((o) => taken.has(start + o))).toEqual([false, true, false, true, false]);
      expect(taken.firstUnstarted()).toBe(start);
      expect(taken.resumeAt()).toBe(start);
      taken.track(start);
      taken.complete(start);
      taken.track(start + 2);
      taken.complete(start + 2);
      expect(taken.pendingCommit()).toEqual({ offset: start + 4, metadata: null });
    },
  );
});

describe('partitionOrphaned (did another member hold the partition?)', () => {
  const member = (
    memberId: string,
    owned: Record<string, number[]>,
    retiring: Record<string, number[]> = {},
  ) => ({
    memberId,
    memberMetadata: AssignerProtocol.MemberMetadata.encode({
      version: 1,
      topics: Object.keys(owned),
      userData: Buffer.from(JSON.stringify({ ...owned, '~retiring': retiring })),
    }),
  });
  const group = (protocol: string, members: ReturnType<typeof member>[]) =>
    ({ protocol, members }) as unknown as GroupDescription;

  it.each([
    ['another member held it', [member('other', { t: [1, 3] })], false],
    ['only this member said it held it', [member('me', { t: [3] }), member('other', { t: [1] })], true],
    ['nobody held it', [member('other', { t: [1] }), member('third', { u: [3] })], true],
    [
      'another member is still finishing it (a rebalance during the handover)',
      [member('other', {}, { t: [3] })],
      false,
    ],
  ])('%s', async (_, members, orphaned) => {
    expect(partitionOrphaned(group(STICKY_PROTOCOL, members), 'me', 't', 3)).toBe(orphaned);
  });

  it('does not know on another protocol (a member of an older version)', async () => {
    expect(partitionOrphaned(group('RoundRobinAssigner', [member('x', {})]), 'me', 't', 3)).toBe(false);
  });
});

describe('GroupView (orphaned as of a join)', () => {
  const nobodyHeldIt = {
    protocol: STICKY_PROTOCOL,
    members: [
      {
        memberId: 'other',
        memberMetadata: AssignerProtocol.MemberMetadata.encode({
          version: 1,
          topics: ['t'],
          userData: Buffer.from(JSON.stringify({ t: [1], '~retiring': {} })),
        }),
      },
    ],
  } as unknown as GroupDescription;
  const viewOf = () => {
    const describeGroups = jest.fn(async () => ({ groups: [nobodyHeldIt] }));
    return { view: new GroupView({ describeGroups } as unknown as Admin, 'g'), describeGroups };
  };

  it('asks the group once per join', async () => {
    const { view, describeGroups } = viewOf();
    view.reset();
    expect(await view.orphaned('me', 't', 3)).toBe(true);
    expect(await view.orphaned('me', 't', 4)).toBe(true);
    expect(describeGroups).toHaveBeenCalledTimes(1);
    view.reset();
    await view.orphaned('me', 't', 3);
    expect(describeGroups).toHaveBeenCalledTimes(2);
  });

  it('counts nothing orphaned right after this member’s own crash: others may not be back yet', async () => {
    const { view, describeGroups } = viewOf();
    view.reset(true);
    expect(await view.orphaned('me', 't', 3)).toBe(false);
    expect(describeGroups).not.toHaveBeenCalled();
    view.reset(false); // the next join, with no crash between
    expect(await view.orphaned('me', 't', 3)).toBe(true);
  });
});
