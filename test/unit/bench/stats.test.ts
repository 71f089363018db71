import { median, medianIndex } from '../../../bench/lib/stats';

describe('medianIndex', () => {
  it.each([
    ['three rounds', [0.52, 0.42, 0.54], 0],
    ['already sorted', [0.1, 0.2, 0.3], 1],
    ['one round', [7], 0],
    ['an even count: the upper middle', [4, 1, 3, 2], 2],
    ['equal values: the first of them in order', [5, 5, 5], 1],
  ])('%s', (_case, values, expected) => {
    expect(medianIndex(values)).toBe(expected);
  });

  it('points at the median value of an odd count', () => {
    const values = [0.61, 0.41, 0.61, 0.72, 0.55];
    expect(values[medianIndex(values)]).toBe(median(values));
  });
});
