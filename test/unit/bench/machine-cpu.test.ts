import { parseProcStat } from '../../../bench/lib/machine-cpu';

describe('parseProcStat', () => {
  test.each([
    {
      name: 'a full line: user+nice+system+irq+softirq+steal busy, idle+iowait idle; guest not added',
      text: 'cpu  100 5 50 1000 20 3 7 1 40 2\ncpu0 50 2 25 500 10 1 3 0 0 0\n',
      expected: { busyMs: (100 + 5 + 50 + 3 + 7 + 1) * 10, idleMs: (1000 + 20) * 10 },
    },
    {
      name: 'an old kernel with four fields',
      text: 'cpu 10 0 5 100',
      expected: { busyMs: 150, idleMs: 1000 },
    },
    { name: 'not the aggregate line first', text: 'cpu0 1 2 3 4 5 6 7 8', expected: undefined },
    { name: 'too few fields', text: 'cpu 1 2 3', expected: undefined },
    { name: 'not numbers', text: 'cpu a b c d', expected: undefined },
    { name: 'empty', text: '', expected: undefined },
  ])('$name', ({ text, expected }) => {
    expect(parseProcStat(text)).toEqual(expected);
  });
});
