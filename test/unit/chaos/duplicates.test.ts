import { taskCopiesLine } from '../../../tools/chaos/report';
import { duplicateCauses } from '../../../tools/chaos/duplicates';

describe('duplicateCauses', () => {
  const faults = [
    { atMs: 1_000, what: 'SIGKILL worker-1' },
    { atMs: 1_500, what: 'worker-1 restarted and ready' },
    { atMs: 5_000, what: 'kill -9 the Kafka broker' },
  ];

  it('lays each repeat at the door of the last kill between the first delivery and the repeat', () => {
    const causes = duplicateCauses(
      [
        [
          { messageId: 'a', atMs: 900 },
          { messageId: 'a', atMs: 2_000 }, // worker kill, 100 ms old work
          { messageId: 'b', atMs: 4_000 },
          { messageId: 'b', atMs: 6_000 }, // broker kill, 1 s old
          { messageId: 'c', atMs: 6_100 },
          { messageId: 'c', atMs: 6_200 }, // no kill between
        ],
        [
          { messageId: 'a', atMs: 100 },
          { messageId: 'a', atMs: 7_000 }, // two kills between: the last one, 4.9 s old
        ],
      ],
      faults,
    );
    expect(causes.byFault).toEqual([
      { what: 'SIGKILL worker-1', atMs: 1_000, duplicates: 1, ageMs: { p50: 100, p90: 100, max: 100 } },
      {
        what: 'kill -9 the Kafka broker',
        atMs: 5_000,
        duplicates: 2,
        ageMs: { p50: 4_900, p90: 4_900, max: 4_900 },
      },
      {
        what: 'no fault between',
        atMs: undefined,
        duplicates: 1,
        gapMs: { p50: 100, p90: 100, max: 100 },
        firstAtMs: { min: 6_100, max: 6_100 },
      },
    ]);
    expect(causes.byAge).toEqual([1, 1, 0, 1, 0]);
  });

  it('lays a first delivery that arrived just after a kill (its request already on the wire) at that kill', () => {
    const causes = duplicateCauses(
      [
        [
          { messageId: 'a', atMs: 1_040 }, // 40 ms after the SIGKILL: written before it
          { messageId: 'a', atMs: 3_000 },
          { messageId: 'b', atMs: 1_300 }, // 300 ms after: made by a live process
          { messageId: 'b', atMs: 3_000 },
        ],
      ],
      faults,
    );
    expect(causes.byFault).toEqual([
      { what: 'SIGKILL worker-1', atMs: 1_000, duplicates: 1, ageMs: { p50: 0, p90: 0, max: 0 } },
      expect.objectContaining({
        what: 'no fault between',
        duplicates: 1,
        firstAtMs: { min: 1_300, max: 1_300 },
      }),
    ]);
  });

  it('counts no duplicate when every event arrived once', () => {
    expect(duplicateCauses([[{ messageId: 'a', atMs: 1 }]], faults)).toEqual({
      byFault: [],
      byAge: [0, 0, 0, 0, 0],
    });
  });
});

describe('taskCopiesLine', () => {
  it('sums the extra copies and names the destinations that got any', () => {
    const line = taskCopiesLine({
      taskCopies: [
        { name: 'healthy-1', extra: 3 },
        { name: 'hung-1', extra: 0 },
        { name: 'failover', extra: 2 },
      ],
    });
    expect(line).toBe(
      'tasks routed more than once (extra copies on the deliveries topic): 5 (healthy-1 3, failover 2)',
    );
    expect(taskCopiesLine({ taskCopies: [{ name: 'healthy-1', extra: 0 }] })).toBe(
      'tasks routed more than once (extra copies on the deliveries topic): 0',
    );
  });
});
