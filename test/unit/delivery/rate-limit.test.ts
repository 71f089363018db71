import { TokenBucket, burstFor } from '../../../src/delivery/rate-limit';

describe('TokenBucket', () => {
  it('gives its capacity at once, then one token every 1/rate seconds', () => {
    const b = new TokenBucket(10, 2, 0);
    expect([b.take(0), b.take(0), b.take(0)]).toEqual([true, true, false]);
    expect(b.nextTokenAtMs(0)).toBe(100);
    expect(b.take(99)).toBe(false);
    expect(b.take(100)).toBe(true);
  });

  it('never saves up more than its capacity', () => {
    const b = new TokenBucket(10, 2, 0);
    expect([b.take(10_000), b.take(10_000), b.take(10_000)]).toEqual([true, true, false]);
  });

  it('lets through at most rate + burst requests in any one-second window', () => {
    const rate = 20;
    const b = new TokenBucket(rate, burstFor(rate), 0);
    const sent: number[] = [];
    for (let t = 0; t < 5_000; t += 7) if (b.take(t)) sent.push(t);
    for (const start of sent) {
      const inWindow = sent.filter((t) => t >= start && t < start + 1_000).length;
      expect(inWindow).toBeLessThanOrEqual(rate + burstFor(rate));
    }
    expect(sent.length).toBeGreaterThanOrEqual(5 * rate);
  });

  it.each([
    [1, 1],
    [10, 1],
    [25, 3],
    [1_000, 100],
  ])('allows a burst of a tenth of a second at %i/s: %i', (rate, burst) => {
    expect(burstFor(rate)).toBe(burst);
  });
});
