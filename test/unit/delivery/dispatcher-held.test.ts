import { dispatcher, manualRuns, task, twoStepRuns } from './dispatcher-support';

/** Dispatcher.limit: how many messages the consumers feeding it may hold (admission.ts, heldBound). */
describe('Dispatcher as a consumer hold-back', () => {
  const limits = { maxActivePerDestination: 2, maxTotal: 1_000 };

  it('follows the requests in flight, queued tasks not counted', async () => {
    const { run, finish } = manualRuns();
    const d = dispatcher({ run, ...limits });
    expect(d.limit(1_000)).toBe(4); // 2 per destination slot
    for (let i = 0; i < 5; i++) void d.submit(task('fast', `u${i}`, `f${i}`));
    void d.submit(task('other', 'u0', 'o0'));
    expect(d.load('fast')).toEqual({ active: 2, queued: 3 });
    expect(d.limit(1_000)).toBe(4 + 3 * 3); // 3 requests in flight
    await finish('o0');
    expect(d.limit(1_000)).toBe(4 + 3 * 2);
    for (const id of ['f0', 'f1', 'f2', 'f3', 'f4']) await finish(id);
    expect(d.limit(1_000)).toBe(4);
    expect(d.limit(3)).toBe(3);
  });

  it('counts a delivered task handing on without its slot until its hand-off is done', async () => {
    const { run, requests, handoffs, settle } = twoStepRuns();
    const d = dispatcher({ run, ...limits });
    void d.submit(task('d', 'u0', 'a'));
    expect(d.limit(1_000)).toBe(4 + 3);
    requests.get('a')!(true); // slot freed, attempt record on its way
    expect(d.limit(1_000)).toBe(4 + 1);
    handoffs.get('a')!();
    await settle();
    expect(d.limit(1_000)).toBe(4);
  });

  it('keeps counting a failed task by its slot, once', async () => {
    const { run, requests, handoffs, settle } = twoStepRuns();
    const d = dispatcher({ run, ...limits });
    void d.submit(task('d', 'u0', 'a'));
    requests.get('a')!(false);
    expect(d.limit(1_000)).toBe(4 + 3);
    handoffs.get('a')!();
    await settle();
    expect(d.limit(1_000)).toBe(4);
  });

  it("adds one user's tasks waiting for its earlier one, not those waiting for a full lane", async () => {
    const { run, finish } = manualRuns();
    const d = dispatcher({ run, ...limits, maxQueuedPerDestination: 100 });
    for (let i = 0; i < 4; i++) void d.submit(task('hot', 'u0', `h${i}`)); // one user: one at a time
    expect(d.load('hot')).toEqual({ active: 1, queued: 3 });
    expect(d.limit(1_000)).toBe(4 + 3 * 1 + 3);
    void d.submit(task('hot', 'u1', 'x0')); // another user fills the lane
    expect(d.load('hot')).toEqual({ active: 2, queued: 3 });
    expect(d.limit(1_000)).toBe(4 + 3 * 2); // queued behind a full lane: not counted
    await finish('x0');
    expect(d.limit(1_000)).toBe(4 + 3 * 1 + 3);
    for (let i = 0; i < 4; i++) await finish(`h${i}`);
    expect(d.load('hot')).toEqual({ active: 0, queued: 0 });
    expect(d.limit(1_000)).toBe(4);
  });

  it('adds the tasks a rate limit keeps waiting, until the lane is gone', async () => {
    const { run, finish } = manualRuns();
    let now = 0;
    const d = dispatcher({
      run,
      ...limits,
      maxQueuedPerDestination: 100,
      rateOf: (id) => (id === 'limited' ? 10 : undefined),
      clock: { now: () => now },
    });
    for (let i = 0; i < 4; i++) void d.submit(task('limited', `u${i}`, `l${i}`));
    expect(d.load('limited')).toEqual({ active: 1, queued: 3 });
    expect(d.limit(1_000)).toBe(4 + 3 * 1 + 3);
    for (let i = 0; i < 4; i++) {
      await finish(`l${i}`);
      now += 100;
      d.sweep();
    }
    expect(d.load('limited')).toEqual({ active: 0, queued: 0 });
    expect(d.limit(1_000)).toBe(4);
  });
});
