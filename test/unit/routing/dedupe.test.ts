import { DedupeWindow } from '../../../src/routing/dedupe';

describe('DedupeWindow', () => {
  it('remembers ids for the window and forgets them after', () => {
    let now = 1_000;
    const w = new DedupeWindow({ windowMs: 100, maxEntries: 10, clock: { now: () => now } });
    w.claim('a');
    now += 100;
    expect(w.has('a')).toBe(true);
    now += 1;
    expect(w.has('a')).toBe(false);
    expect(w.size).toBe(0);
  });

  it('claims an id once, and lets a released claim be made again', () => {
    const w = new DedupeWindow({ windowMs: 1_000, maxEntries: 10, clock: { now: () => 0 } });
    expect(w.claim('m')).toBe(true);
    expect(w.claim('m')).toBe(false);
    w.release('m');
    expect(w.claim('m')).toBe(true);
  });

  it('forgets the oldest ids beyond maxEntries', () => {
    const w = new DedupeWindow({ windowMs: 1_000_000, maxEntries: 3, clock: { now: () => 0 } });
    for (const id of ['a', 'b', 'c', 'd']) w.claim(id);
    expect(['a', 'b', 'c', 'd'].map((id) => w.has(id))).toEqual([false, true, true, true]);
  });
});
