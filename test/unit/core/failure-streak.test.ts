import { FailureStreak } from '../../../src/core/failure-streak';

type Step = ['fail', number, number | undefined] | ['ok', number | undefined];

describe('FailureStreak', () => {
  it.each<[string, Step[]]>([
    [
      'nothing to tell of successes alone',
      [
        ['ok', undefined],
        ['ok', undefined],
      ],
    ],
    [
      'the first failure, then one line per 10 s with the count since the last line',
      [
        ['fail', 0, 1],
        ['fail', 500, undefined],
        ['fail', 9_999, undefined],
        ['fail', 10_000, 3],
        ['fail', 10_500, undefined],
        ['fail', 20_000, 2],
      ],
    ],
    [
      'a success tells the whole streak, and the next failure is told at once',
      [
        ['fail', 0, 1],
        ['fail', 500, undefined],
        ['fail', 1_000, undefined],
        ['ok', 3],
        ['ok', undefined],
        ['fail', 1_500, 1],
      ],
    ],
  ])('%s', (_name, steps) => {
    const streak = new FailureStreak(10_000);
    for (const step of steps) {
      if (step[0] === 'fail') expect(streak.failed(step[1])).toBe(step[2]);
      else expect(streak.succeeded()).toBe(step[1]);
    }
  });
});
