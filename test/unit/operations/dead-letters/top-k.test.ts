import { TopK } from '../../../../src/operations/dead-letters/top-k';

describe('TopK', () => {
  const ascending = (a: number, b: number) => a - b;

  it.each([
    ['fewer items than k', [5, 1, 3], 5, [1, 3, 5]],
    ['the k first in order', [9, 4, 7, 1, 8, 2, 6], 3, [1, 2, 4]],
    ['ties', [2, 2, 1, 2], 2, [1, 2]],
    ['k = 0', [1, 2], 0, []],
  ])('keeps %s', (_case, items, k, expected) => {
    const top = new TopK<number>(k, ascending);
    for (const item of items) top.offer(item);
    expect(top.sorted()).toEqual(expected);
  });

  it('says when it is full and which item it would drop next', () => {
    const top = new TopK<number>(2, ascending);
    top.offer(5);
    expect([top.full, top.last()]).toEqual([false, 5]);
    top.offer(3);
    top.offer(4);
    expect([top.full, top.last()]).toEqual([true, 4]);
  });

  it('agrees with sorting everything, for a long shuffled stream', () => {
    const items = Array.from({ length: 2_000 }, (_, i) => (i * 7_919) % 2_000);
    const top = new TopK<number>(25, (a, b) => b - a);
    for (const item of items) top.offer(item);
    expect(top.sorted()).toEqual([...items].sort((a, b) => b - a).slice(0, 25));
  });
});
