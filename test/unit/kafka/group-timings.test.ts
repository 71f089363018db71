import { groupTimings, heartbeatIntervalMs } from '../../../src/kafka/group-timings';

describe('consumer-group timings', () => {
  it.each([
    [30_000, 3_000],
    [9_000, 3_000],
    [6_000, 2_000],
    [45_000, 3_000],
  ])('a session timeout of %i ms heartbeats every %i ms', (sessionTimeoutMs, expected) => {
    expect(heartbeatIntervalMs(sessionTimeoutMs)).toBe(expected);
  });

  it('keeps the heartbeat well inside the session, and the rebalance timeout at kafkajs’s default', () => {
    expect(groupTimings(6_000)).toEqual({
      sessionTimeout: 6_000,
      heartbeatInterval: 2_000,
      rebalanceTimeout: 60_000,
    });
  });
});
