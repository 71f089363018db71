import {
  DEFAULT_RETRY_CUTOFF_MS,
  DEFAULT_RETRY_SCHEDULE_MS,
  scheduleProblem,
} from '../../../../src/config/retry';
import {
  cutoffClockStartMs,
  nextRetry,
  parkingStep,
  pauseStep,
  timesPaused,
} from '../../../../src/delivery/retry/schedule';
import { formatDelay, retryTopic } from '../../../../src/kafka/topics';

const policy = { scheduleMs: DEFAULT_RETRY_SCHEDULE_MS, cutoffMs: DEFAULT_RETRY_CUTOFF_MS };
const S = 1_000;
const M = 60 * S;
const H = 60 * M;

describe('nextRetry with the default policy', () => {
  // Each attempt fails right when it is due; the table is the whole life of a task.
  it.each([
    [1, 0, { kind: 'retry', delayMs: 10 * S, tier: 0 }],
    [2, 10 * S, { kind: 'retry', delayMs: 1 * M, tier: 1 }],
    [3, 70 * S, { kind: 'retry', delayMs: 5 * M, tier: 2 }],
    [4, 6 * M + 10 * S, { kind: 'retry', delayMs: 20 * M, tier: 3 }],
    [5, 26 * M + 10 * S, { kind: 'retry', delayMs: 1 * H, tier: 4 }],
    [6, H + 26 * M + 10 * S, { kind: 'retry', delayMs: 1 * H, tier: 4 }],
    [7, 2 * H + 26 * M + 10 * S, { kind: 'retry', delayMs: 1 * H, tier: 4 }],
    [8, 3 * H + 26 * M + 10 * S, { kind: 'dead-letter', reason: 'retry_cutoff' }],
  ])('after attempt %i failing at +%ims → %j', (attempts, nowMs, expected) => {
    const decision = nextRetry({ policy, attempts, firstAttemptAtMs: 0, nowMs });
    expect(decision).toMatchObject(expected);
    if (decision.kind === 'retry') expect(decision.dueAtMs).toBe(nowMs + decision.delayMs);
  });

  it.each([
    [5 * S, 10 * S, 0], // shorter than the schedule: the schedule wins
    [30 * S, 1 * M, 1], // rounded up to the next tier: never early
    [5 * M, 5 * M, 2],
    [2 * H, 1 * H, 4], // longer than the last step: that step, then parked again (dueAtMs)
  ])(
    'honours Retry-After %ims on a first failure in the %ims step (tier %i)',
    (retryAfterMs, delayMs, tier) => {
      expect(nextRetry({ policy, attempts: 1, firstAttemptAtMs: 0, nowMs: 0, retryAfterMs })).toEqual({
        kind: 'retry',
        delayMs,
        dueAtMs: Math.max(delayMs, retryAfterMs),
        tier,
      });
    },
  );

  it('dead-letters when a Retry-After wait would pass the cutoff, saying so', () => {
    expect(
      nextRetry({ policy, attempts: 2, firstAttemptAtMs: 0, nowMs: 3 * H + 30 * M, retryAfterMs: H }),
    ).toEqual({ kind: 'dead-letter', reason: 'retry_after_beyond_cutoff' });
    expect(nextRetry({ policy, attempts: 1, firstAttemptAtMs: 0, nowMs: 0, retryAfterMs: 5 * H })).toEqual({
      kind: 'dead-letter',
      reason: 'retry_after_beyond_cutoff',
    });
  });

  it('dead-letters at the cutoff when the schedule, not Retry-After, would pass it', () => {
    expect(
      nextRetry({ policy, attempts: 6, firstAttemptAtMs: 0, nowMs: 3 * H + 30 * M, retryAfterMs: 10 * S }),
    ).toEqual({ kind: 'dead-letter', reason: 'retry_cutoff' });
  });

  it('runs a scaled-down policy the same way', () => {
    const scaled = { scheduleMs: [100, 200, 400], cutoffMs: 1_000 };
    const dues: number[] = [];
    let now = 0;
    for (let attempts = 1; attempts < 20; attempts++) {
      const d = nextRetry({ policy: scaled, attempts, firstAttemptAtMs: 0, nowMs: now });
      if (d.kind === 'dead-letter') break;
      dues.push(d.dueAtMs);
      now = d.dueAtMs;
    }
    expect(dues).toEqual([100, 300, 700]);
  });
});

describe('delay topics', () => {
  it.each([
    [10_000, '10s'],
    [60_000, '1m'],
    [5_400_000, '1h30m'],
    [250, '250ms'],
    [1_500, '1s500ms'],
  ])('%ims → %s', (ms, text) => expect(formatDelay(ms)).toBe(text));

  it('names a tier topic after its delay', () => {
    expect(retryTopic('hookline', 10_000)).toBe('hookline.retry.10s');
  });

  it.each([
    [[], 'at least one'],
    [[0, 10], 'positive'],
    [[10, 10], 'increasing'],
    [[10, 5], 'increasing'],
  ])('refuses schedule %j', (schedule, problem) => expect(scheduleProblem(schedule)).toContain(problem));

  it('accepts the default schedule', () =>
    expect(scheduleProblem(DEFAULT_RETRY_SCHEDULE_MS)).toBeUndefined());
});

describe('parkingStep', () => {
  it.each([
    [3 * H, 1 * H], // the longest step that does not pass the due time
    [45 * M, 20 * M],
    [90 * S, 1 * M],
    [2 * S, 10 * S], // shorter than every step: the shortest (late, never early)
  ])('parks a task due in %ims in the %ims step', (remainingMs, step) => {
    expect(parkingStep(DEFAULT_RETRY_SCHEDULE_MS, 1_000, 1_000 + remainingMs)).toBe(step);
  });
});

describe('pauseStep (destination disabled)', () => {
  it.each([
    [0, 10 * S],
    [1, 1 * M],
    [4, 1 * H],
    [9, 1 * H],
  ])('parked %i times before: waits %ims', (pausedTimes, delayMs) => {
    expect(pauseStep({ policy, pausedTimes, startedAtMs: 0, nowMs: 0 })).toEqual({ kind: 'park', delayMs });
  });

  it('dead-letters once the pause would pass the cutoff', () => {
    expect(pauseStep({ policy, pausedTimes: 5, startedAtMs: 0, nowMs: 3 * H + 30 * M })).toEqual({
      kind: 'dead-letter',
      reason: 'destination_disabled',
    });
  });
});

describe('timesPaused', () => {
  const entry = (atMs: number, result: 'deferred' | 'http_5xx', error?: string) => ({
    atMs,
    durationMs: 0,
    urlIndex: 0,
    result,
    error,
  });
  const history = [
    entry(1_000, 'deferred', 'destination_disabled'),
    entry(2_000, 'http_5xx', 'HTTP 503'),
    entry(3_000, 'deferred', 'destination_disabled'),
    entry(4_000, 'deferred', 'retry_after'),
    entry(6_000, 'deferred', 'destination_disabled'),
  ];
  it.each([
    ['never reissued: every pause', undefined, 3],
    ['redriven at 5 s: the pause after it', 5_000, 1],
    ['redriven after its last pause: none', 7_000, 0],
    ['redriven at the moment of a pause: that one counts', 3_000, 2],
  ])('%s', (_, reissuedAtMs, times) => {
    expect(timesPaused({ history, reissuedAtMs })).toBe(times);
  });
});

describe('cutoffClockStartMs', () => {
  const receivedAtMs = 1_000;
  it.each([
    ['a task routed from a live event, never attempted', {}, receivedAtMs],
    ['a task routed from a live event, attempted', { firstAttemptAtMs: 2_000 }, 2_000],
    ['a redriven or replayed task, never attempted', { reissuedAtMs: 5 * H }, 5 * H],
    [
      'a redriven or replayed task, attempted since',
      { reissuedAtMs: 5 * H, firstAttemptAtMs: 5 * H + 10 },
      5 * H + 10,
    ],
  ])('%s', (_, times, expected) => {
    expect(cutoffClockStartMs({ receivedAtMs, ...times })).toBe(expected);
  });
});
