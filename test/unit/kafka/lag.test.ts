import type { Admin } from 'kafkajs';
import { Registry } from 'prom-client';
import { startLagMonitor } from '../../../src/kafka/lag';
import { silentLogger } from '../../../src/observability/logger';

/** A broker with one topic of two partitions: high watermark 10, committed 4 on each. */
function fakeAdmin(): Admin {
  return {
    fetchOffsets: async () => [
      {
        topic: 'h.deliveries',
        partitions: [0, 1].map((partition) => ({ partition, offset: '4', metadata: null })),
      },
    ],
    fetchTopicOffsets: async () =>
      [0, 1].map((partition) => ({ partition, offset: '10', low: '0', high: '10' })),
  } as unknown as Admin;
}

describe('startLagMonitor', () => {
  const intervalMs = 5_000;
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  /** The gauge's series after a measurement with `before` owned, then one with `after`. */
  async function series(before: number[], after: number[]) {
    const metrics = new Registry();
    let owned = before;
    const monitor = startLagMonitor({
      admin: fakeAdmin(),
      groupId: 'h.worker',
      assigned: () => owned.map((partition) => ({ topic: 'h.deliveries', partition })),
      metrics,
      logger: silentLogger(),
      intervalMs,
    });
    const read = async () =>
      (await metrics.getSingleMetric('hookline_consumer_lag')!.get()).values.map((v) => ({
        partition: String(v.labels.partition),
        value: v.value,
      }));
    await jest.advanceTimersByTimeAsync(0); // the first measurement, at start
    const first = await read();
    owned = after;
    await jest.advanceTimersByTimeAsync(intervalMs);
    monitor.stop();
    return { first, then: await read() };
  }

  it('reports the lag of each partition this member owns', async () => {
    const { first, then } = await series([0, 1], [0, 1]);
    const both = [
      { partition: '0', value: 6 },
      { partition: '1', value: 6 },
    ];
    expect(first).toEqual(both);
    expect(then).toEqual(both);
  });

  it.each([
    ['one of its two partitions', [1], [{ partition: '1', value: 6 }]],
    ['every partition (a member left with none)', [], []],
  ])('removes the series of partitions it gave up: %s', async (_, after, expected) => {
    const { then } = await series([0, 1], after);
    expect(then).toEqual(expected);
  });
});
