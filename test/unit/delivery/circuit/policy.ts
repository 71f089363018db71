import type { BreakerPolicy } from '../../../../src/delivery/circuit/breaker';

/** The breaker policy of the circuit unit tests: opens at 10 requests, half failed; 30 s, 60 s, 120 s. */
export const policy: BreakerPolicy = {
  windowMs: 30_000,
  minRequests: 10,
  failureRatio: 0.5,
  cooldownMs: 30_000,
  maxCooldownMs: 120_000,
  probes: 2,
};
export const S = 1_000;
