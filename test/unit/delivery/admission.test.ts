import {
  admit,
  heldBound,
  isSlow,
  slowCaps,
  type AdmissionLimits,
  type LaneLoad,
} from '../../../src/delivery/admission';

const limits: AdmissionLimits = {
  maxActivePerDestination: 50,
  maxQueuedPerDestination: 500,
  deferAfterWaitMs: 10_000,
  maxTotal: 1_000,
  slowShare: 0.5,
  slowRunMs: 2_000,
};
const lane = (overrides: Partial<LaneLoad> = {}): LaneLoad => ({
  active: 0,
  queued: 0,
  avgRunMs: 20,
  oldestRunAgeMs: 0,
  sameUserActive: false,
  tokenReady: true,
  ...overrides,
});
const hung = (overrides: Partial<LaneLoad> = {}) =>
  lane({ avgRunMs: undefined, oldestRunAgeMs: 5_000, ...overrides });

describe('admission policy', () => {
  it.each([
    ['an idle fast lane starts', lane(), { slowActive: 0, slowLanes: 0 }, 'start'],
    ['a fast lane at its concurrency queues', lane({ active: 50 }), { slowActive: 0, slowLanes: 0 }, 'queue'],
    [
      "a fast lane waits for the same user's earlier task",
      lane({ sameUserActive: true }),
      { slowActive: 0, slowLanes: 0 },
      'queue',
    ],
    [
      'a fast burst past the queue bound still queues',
      lane({ active: 50, queued: 500 }),
      { slowActive: 0, slowLanes: 0 },
      'queue',
    ],
    [
      'a full queue that would take over 10 s to drain defers',
      lane({ active: 50, queued: 500, avgRunMs: 1_500 }),
      { slowActive: 0, slowLanes: 0 },
      'defer',
    ],
    [
      'a slow lane with room in its share starts',
      hung({ active: 10 }),
      { slowActive: 100, slowLanes: 5 },
      'start',
    ],
    [
      'a slow lane never queues: at its share it defers',
      hung({ active: 50 }),
      { slowActive: 100, slowLanes: 5 },
      'defer',
    ],
    [
      'nine slow lanes split the budget: 55 each, capped at 50',
      hung({ active: 49 }),
      { slowActive: 400, slowLanes: 9 },
      'start',
    ],
    ['forty slow lanes: 12 each', hung({ active: 12 }), { slowActive: 480, slowLanes: 40 }, 'defer'],
    ['the slow budget is spent: defer', hung({ active: 0 }), { slowActive: 500, slowLanes: 600 }, 'defer'],
    [
      'a slow lane defers rather than wait for the same user',
      hung({ sameUserActive: true }),
      { slowActive: 0, slowLanes: 1 },
      'defer',
    ],
    [
      'rate-limited with a token: starts',
      lane({ ratePerSecond: 10 }),
      { slowActive: 0, slowLanes: 0 },
      'start',
    ],
    [
      'rate-limited without a token: waits its turn in the lane',
      lane({ ratePerSecond: 10, tokenReady: false, queued: 50 }),
      { slowActive: 0, slowLanes: 0 },
      'queue',
    ],
    [
      'rate-limited with 10 s of work queued: parked in the delay topics',
      lane({ ratePerSecond: 10, tokenReady: false, queued: 100 }),
      { slowActive: 0, slowLanes: 0 },
      'defer',
    ],
    [
      'rate-limited and fast, but its queue is full: parked',
      lane({ ratePerSecond: 1_000, tokenReady: false, queued: 500 }),
      { slowActive: 0, slowLanes: 0 },
      'defer',
    ],
    [
      'slow and rate-limited with a token: starts',
      hung({ active: 1, ratePerSecond: 1 }),
      { slowActive: 1, slowLanes: 1 },
      'start',
    ],
    [
      'slow and rate-limited without a token: defers, though its share has room',
      hung({ active: 1, ratePerSecond: 1, tokenReady: false }),
      { slowActive: 1, slowLanes: 1 },
      'defer',
    ],
    [
      'slow by average even with nothing in flight',
      lane({ avgRunMs: 4_000, active: 50 }),
      { slowActive: 50, slowLanes: 1 },
      'defer',
    ],
  ] as const)('%s', (_name, load, pool, expected) => {
    expect(admit(load, pool, limits)).toBe(expected);
  });

  // Stalled (isStalled): the worker's slow threshold (2 s), the default first retry delay (10 s).
  const worker = { ...limits, deferAfterWaitMs: 10_000 };
  const full = (avgRunMs: number | undefined, oldestRunAgeMs: number, extra: Partial<LaneLoad> = {}) =>
    lane({ active: 50, avgRunMs, oldestRunAgeMs, ...extra });
  it.each([
    [
      'runs of 20 ms, the oldest in flight 0.4 s (under the 0.5 s floor): queues',
      full(20, 400),
      worker,
      'queue',
    ],
    ['runs of 20 ms, the oldest in flight 0.6 s: stalled, defers', full(20, 600), worker, 'defer'],
    ['never answered, the oldest in flight 0.6 s: stalled, defers', full(undefined, 600), worker, 'defer'],
    ['runs of 300 ms, the oldest 0.9 s (under 4× that): queues', full(300, 900), worker, 'queue'],
    ['runs of 300 ms, the oldest 1.5 s: stalled, defers', full(300, 1_500), worker, 'defer'],
    [
      'runs of 400 ms, the oldest 1.2 s, a 1 s wait budget: stalled, defers',
      full(400, 1_200),
      { ...worker, deferAfterWaitMs: 1_000 },
      'defer',
    ],
    ['stalled, but with room: starts', full(20, 600, { active: 10 }), worker, 'start'],
    [
      "stalled, and the same user's task in flight: defers",
      full(20, 600, { active: 10, sameUserActive: true }),
      worker,
      'defer',
    ],
    [
      'stalled and rate-limited without a token: defers',
      full(20, 600, { active: 1, ratePerSecond: 10, tokenReady: false }),
      worker,
      'defer',
    ],
  ] as const)('%s', (_name, load, policy, expected) => {
    expect(admit(load, { slowActive: 0, slowLanes: 0 }, policy)).toBe(expected);
  });

  it('calls a lane slow by its average run or by its oldest run in flight', () => {
    expect(isSlow({ avgRunMs: 2_001, oldestRunAgeMs: 0 }, limits)).toBe(true);
    expect(isSlow({ avgRunMs: undefined, oldestRunAgeMs: 2_001 }, limits)).toBe(true);
    expect(isSlow({ avgRunMs: 1_999, oldestRunAgeMs: 1_999 }, limits)).toBe(false);
  });

  it('gives every slow lane an equal part of half the capacity, at least one request', () => {
    expect(slowCaps(limits, 1)).toEqual({ budget: 500, perLane: 50 });
    expect(slowCaps(limits, 20)).toEqual({ budget: 500, perLane: 25 });
    expect(slowCaps(limits, 10_000)).toEqual({ budget: 500, perLane: 1 });
  });

  it('keeps fast lanes their capacity whatever the number of slow ones (k of N, any k)', () => {
    for (const slowLanes of [1, 3, 9, 99, 10_000]) {
      const { budget } = slowCaps(limits, slowLanes);
      expect(limits.maxTotal - budget).toBeGreaterThanOrEqual(limits.maxTotal / 2);
      expect(admit(lane(), { slowActive: budget, slowLanes }, limits)).toBe('start');
    }
  });

  it.each([
    [
      'nothing in flight: two messages per destination slot',
      { active: 0, handingOn: 0, waitingWithRoom: 0 },
      100,
    ],
    ['one fast destination at its concurrency', { active: 50, handingOn: 0, waitingWithRoom: 0 }, 250],
    ['... with delivered tasks handing on', { active: 50, handingOn: 80, waitingWithRoom: 0 }, 330],
    [
      '... and tasks waiting in a lane with room (a token, the same user)',
      { active: 50, handingOn: 80, waitingWithRoom: 200 },
      530,
    ],
    [
      'many destinations in flight: the whole bound',
      { active: 400, handingOn: 0, waitingWithRoom: 0 },
      1_000,
    ],
  ])('holds %s', (_name, load, expected) => {
    expect(heldBound(load, { maxInFlight: 1_000, maxActivePerDestination: 50 })).toBe(expected);
  });

  it('never holds more than maxInFlight, nor less than its floor', () => {
    const load = { active: 0, handingOn: 0, waitingWithRoom: 0 };
    expect(heldBound(load, { maxInFlight: 60, maxActivePerDestination: 50 })).toBe(60);
    expect(heldBound(load, { maxInFlight: 1_000, maxActivePerDestination: 5 })).toBe(10);
  });
});
