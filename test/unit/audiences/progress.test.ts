import { InputProgress } from '../../../src/audiences/progress';

const loaded = () =>
  new InputProgress([
    { topic: 'events', offset: '10' },
    { topic: 'commands', offset: '3' },
  ]);

describe('InputProgress', () => {
  it.each([
    ['events', '9', true],
    ['events', '10', false],
    ['events', '11', false],
    ['commands', '2', true],
    ['commands', '3', false],
    ['unknown', '0', false],
  ])('after loading, %s at %s is applied: %s', (topic, offset, applied) => {
    expect(loaded().isApplied(topic, offset)).toBe(applied);
  });

  it('records applied are skipped if fetched again, and committed with their offsets, once', () => {
    const p = loaded();
    expect(p.uncommitted).toBe(false);
    expect(p.toCommit()).toEqual([]);
    p.applied('events', '15', 0);
    p.applied('events', '20', 0);
    expect(p.isApplied('events', '19')).toBe(true);
    expect(p.isApplied('events', '20')).toBe(false);
    expect(p.nextOf('events')).toBe('20');
    expect(p.uncommitted).toBe(true);
    expect(p.toCommit()).toEqual([{ topic: 'events', offset: '20' }]);
    const pending = p.pending;
    p.committedNow();
    expect(p.uncommitted).toBe(false);
    expect(p.toCommit()).toEqual([]);
    expect(p.pending).not.toBe(pending);
    expect(p.isApplied('events', '19')).toBe(true);
  });

  it('an offset behind what is applied moves nothing', () => {
    const p = loaded();
    p.applied('events', '8', 0);
    p.applied('commands', '3', 0);
    expect(p.uncommitted).toBe(false);
    expect(p.nextOf('events')).toBe('10');
  });

  it('a rewind goes back to the last commit of each topic applied since', () => {
    const p = loaded();
    p.applied('events', '20', 0);
    p.committedNow();
    p.applied('events', '30', 0);
    p.applied('commands', '5', 0);
    expect(p.rewind()).toEqual([
      { topic: 'events', offset: '20' },
      { topic: 'commands', offset: '3' },
    ]);
    expect(p.toCommit()).toEqual([
      { topic: 'events', offset: '30' },
      { topic: 'commands', offset: '5' },
    ]);
  });

  it.each([
    ['nothing applied', [], 5_000, 1_000, false],
    ['applied 500 ms ago, interval 1 s', [4_500], 5_000, 1_000, false],
    ['applied 1 s ago, interval 1 s', [4_000], 5_000, 1_000, true],
    ['first applied 1 s ago, more since', [4_000, 4_900], 5_000, 1_000, true],
    ['interval 0: at once', [5_000], 5_000, 0, true],
  ])('due: %s → %s', (_name, appliedAt, nowMs, intervalMs, due) => {
    const p = loaded();
    appliedAt.forEach((atMs, i) => p.applied('events', String(11 + i), atMs));
    expect(p.due(nowMs, intervalMs)).toBe(due);
  });

  it('records that changed something are due an interval after the first of them', () => {
    const p = loaded();
    p.applied('events', '11', 0, false); // e.g. the processor's own identifies: nothing to evaluate
    p.applied('events', '12', 900, true);
    expect(p.due(1_000, 1_000)).toBe(false);
    expect(p.due(1_899, 1_000)).toBe(false);
    expect(p.due(1_900, 1_000)).toBe(true);
  });

  it('a commit restarts the interval', () => {
    const p = loaded();
    p.applied('events', '11', 0);
    p.committedNow();
    expect(p.due(10_000, 1_000)).toBe(false);
    p.applied('events', '12', 9_500);
    expect(p.due(10_000, 1_000)).toBe(false);
  });

  it('every commit starts a new outbox of what changed', () => {
    const p = loaded();
    p.pending.users.add('s:u1');
    p.applied('events', '11', 0);
    expect(p.pending.users.has('s:u1')).toBe(true);
    p.committedNow();
    expect(p.pending.empty).toBe(true);
  });
});
