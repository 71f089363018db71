import type { ChaosOptions } from './scenario';

export type ChaosProfile = Omit<ChaosOptions, 'logger' | 'log'>;

/**
 * Hookline settings of both profiles: a hung destination's attempt times out after 3 s, retries
 * at +1 s, +5 s, +20 s, then every 20 s, and a task is dead-lettered 90 s after its first attempt
 * (or its receipt, when it was only ever deferred), so every task of a hung destination ends in
 * the DLQ within the run. 90 s, not less: a URL's circuit breaker stays open 30 s, then 60 s if its
 * probes fail (not configurable), and the flapping destination's tasks must outlive that. 3 s, not
 * 1 s: on a loaded 2-core machine healthy receivers then missed the timeout now and then (a
 * delivered event retried, a healthy URL's breaker opened).
 */
const HOOKLINE = { deliveryTimeout: '3s', retrySchedule: '1s,5s,20s', retryCutoff: '90s' };
/** Two always-healthy destinations, the failover and flapping ones, and three that never answer. */
const RECEIVERS = { healthy: 2, hung: 3, flappingDrops: 100 };

/** The CI form (test/integration/chaos.test.ts): ~25 s of load, one broker kill, at least 4 worker kills; ~3 min in all. */
export const SHORT_PROFILE: ChaosProfile = {
  events: 2_000,
  ratePerSecond: 80,
  workers: 2,
  workerKillIntervalMs: 4_000,
  minWorkerKills: 4,
  brokerKills: 1,
  brokerDownMs: 3_000,
  receivers: RECEIVERS,
  hookline: HOOKLINE,
  settleTimeoutMs: 180_000,
};

/** `npm run chaos`: 2 min of load, three broker kills. */
export const LONG_PROFILE: ChaosProfile = {
  ...SHORT_PROFILE,
  events: 12_000,
  ratePerSecond: 100,
  brokerKills: 3,
  minWorkerKills: 20,
  settleTimeoutMs: 300_000,
};
