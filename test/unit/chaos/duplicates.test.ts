import { taskCopiesLine } from '../../../tools/chaos/report';
import { duplicateCauses, formatDuplicateCauses } from '../../../tools/chaos/duplicates';

describe('duplicateCauses', () => {
  const faults = [
    { atMs: 1_000, what: 'SIGKILL worker-1' },
    { atMs: 1_500, what: 'worker-1 restarted and ready' },
    { atMs: 5_000, what: 'kill -9 the Kafka broker' },
    { atMs: 5_800, what: 'Kafka broker restarted on its data' },
  ];
  /** A worker SIGKILLed 3.9 s into an 18 s broker outage (the CI rehearsal of 0dd9140). */
  const outage = [
    { atMs: 12_500, what: 'kill -9 the Kafka broker' },
    { atMs: 16_400, what: 'SIGKILL worker-2' },
    { atMs: 30_500, what: 'Kafka broker restarted on its data' },
  ];

  it('lays each repeat at the door of the kills between the earlier delivery and the repeat', () => {
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
          { messageId: 'a', atMs: 7_000 }, // two kills between, 0.9 s old work at the first
        ],
      ],
      faults,
    );
    const [workerKill, , brokerKill] = faults;
    expect(causes.byFault).toEqual([
      {
        what: 'SIGKILL worker-1',
        atMs: 1_000,
        chain: [workerKill],
        duplicates: 1,
        ageMs: { p50: 100, p90: 100, max: 100 },
      },
      {
        what: 'SIGKILL worker-1 → kill -9 the Kafka broker',
        atMs: 1_000,
        chain: [workerKill, brokerKill],
        duplicates: 1,
        ageMs: { p50: 900, p90: 900, max: 900 },
      },
      {
        what: 'kill -9 the Kafka broker',
        atMs: 5_000,
        chain: [brokerKill],
        duplicates: 1,
        ageMs: { p50: 1_000, p90: 1_000, max: 1_000 },
      },
      {
        what: 'no fault between',
        atMs: undefined,
        chain: [],
        duplicates: 1,
        gapMs: { p50: 100, p90: 100, max: 100 },
        firstAtMs: { min: 6_100, max: 6_100 },
      },
    ]);
    expect(causes.byAge).toEqual([1, 2, 0, 0, 0]);
  });

  it('names both kills for any delivery made while the broker was away by a worker killed before it came back', () => {
    const causes = duplicateCauses(
      [
        [
          { messageId: 'a', atMs: 12_580 }, // delivered with the broker gone: nowhere to record it
          { messageId: 'a', atMs: 35_000 },
          { messageId: 'b', atMs: 12_610 }, // 110 ms into the outage: past the landing window
          { messageId: 'b', atMs: 35_000 },
          { messageId: 'c', atMs: 14_500 },
          { messageId: 'c', atMs: 35_000 },
          { messageId: 'd', atMs: 31_000 }, // after the broker was back: the worker kill is not in between
          { messageId: 'd', atMs: 31_500 },
        ],
      ],
      outage,
    );
    expect(causes.byFault).toEqual([
      expect.objectContaining({
        what: 'kill -9 the Kafka broker → SIGKILL worker-2',
        duplicates: 3,
        ageMs: { p50: 0, p90: 0, max: 0 },
      }),
      expect.objectContaining({ what: 'no fault between', duplicates: 1 }),
    ]);
    expect(formatDuplicateCauses(causes, 0).split('\n')[1]).toBe(
      '  12.5 s kill -9 the Kafka broker → 16.4 s SIGKILL worker-2: 3 duplicates (earlier delivery before the first kill: p50 0 ms, p90 0 ms, max 0 ms)',
    );
  });

  it('lays a third delivery at what came after the second, not the first', () => {
    const causes = duplicateCauses(
      [
        [
          { messageId: 'a', atMs: 500 },
          { messageId: 'a', atMs: 2_000 }, // after the worker kill at 1 s
          { messageId: 'a', atMs: 7_000 }, // after the broker kill at 5 s only
        ],
      ],
      faults,
    );
    expect(causes.byFault.map((f) => [f.what, f.duplicates, f.ageMs?.max])).toEqual([
      ['SIGKILL worker-1', 1, 500],
      ['kill -9 the Kafka broker', 1, 3_000],
    ]);
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
      {
        what: 'SIGKILL worker-1',
        atMs: 1_000,
        chain: [faults[0]],
        duplicates: 1,
        ageMs: { p50: 0, p90: 0, max: 0 },
      },
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
