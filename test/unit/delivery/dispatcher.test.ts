import { WorkNotHeldError } from '../../../src/core/errors';
import type { DeliveryTask } from '../../../src/records/delivery-task';
import { dispatcher, manualRuns, task, twoStepRuns } from './dispatcher-support';

describe('Dispatcher', () => {
  it('defers the tasks of a stuck destination once its queue is full, without holding back another', async () => {
    const { run, started } = manualRuns();
    const deferred: string[] = [];
    let now = 0;
    const d = dispatcher({
      run,
      defer: async (t) => void deferred.push(t.messageId),
      clock: { now: () => now },
    });
    // "stuck" never answers: 2 in flight, 3 queued; once its requests have hung for long enough
    // that the queue would take over 10 s to drain, the rest are deferred.
    for (let i = 0; i < 5; i++) void d.submit(task('stuck', `u${i}`, `s${i}`));
    now += 7_000; // 3 queued ÷ 2 active × 7 s = 10.5 s > 10 s
    for (let i = 5; i < 8; i++) void d.submit(task('stuck', `u${i}`, `s${i}`));
    void d.submit(task('fast', 'u1', 'f1'));
    expect(started).toEqual(['s0', 's1', 'f1']);
    expect(d.load('stuck')).toEqual({ active: 2, queued: 3 });
    expect(deferred).toEqual(['s5', 's6', 's7']);
  });

  it('keeps no queue behind a request that looks hung (stalled), before the lane counts as slow', async () => {
    const { run, started } = manualRuns();
    const deferred: string[] = [];
    let now = 0;
    const d = dispatcher({
      run,
      deferAfterWaitMs: 1_000,
      defer: async (t) => void deferred.push(t.messageId),
      clock: { now: () => now },
    });
    // A destination that just stopped answering: 2 in flight, 3 queued behind them.
    for (let i = 0; i < 5; i++) void d.submit(task('stuck', `u${i}`, `s${i}`));
    expect(d.load('stuck')).toEqual({ active: 2, queued: 3 });
    now += 1_500; // past isStalled's threshold, far from slowRunMs (60 s)
    d.sweep();
    expect(deferred).toEqual(['s2', 's3', 's4']);
    void d.submit(task('stuck', 'u5', 's5'));
    expect(deferred).toEqual(['s2', 's3', 's4', 's5']);
    void d.submit(task('fast', 'u1', 'f1'));
    expect(started).toEqual(['s0', 's1', 'f1']);
  });

  it('queues a burst for a destination that answers quickly, even past the queue bound', async () => {
    const { run, finish } = manualRuns();
    let now = 0;
    const deferred: string[] = [];
    const d = dispatcher({
      run,
      defer: async (t) => void deferred.push(t.messageId),
      clock: { now: () => now },
    });
    void d.submit(task('fast', 'u0', 'm0'));
    now += 20;
    await finish('m0'); // a 20 ms request
    for (let i = 1; i <= 20; i++) void d.submit(task('fast', `u${i}`, `m${i}`));
    expect(deferred).toEqual([]);
    expect(d.load('fast')).toEqual({ active: 2, queued: 18 });
  });

  it("keeps one user's tasks to one destination in order, and other users' running meanwhile", async () => {
    const { run, started, finish } = manualRuns();
    const d = dispatcher({ run, maxActivePerDestination: 10, maxQueuedPerDestination: 100 });
    const done = [
      d.submit(task('d', 'alice', 'a1')),
      d.submit(task('d', 'alice', 'a2')),
      d.submit(task('d', 'bob', 'b1')),
    ];
    expect(started).toEqual(['a1', 'b1']);
    await finish('a1');
    expect(started).toEqual(['a1', 'b1', 'a2']);
    await finish('a2');
    await finish('b1');
    await Promise.all(done);
    expect(d.load('d')).toEqual({ active: 0, queued: 0 });
  });

  it('calls onStart when the attempt begins, after any wait in the lane', async () => {
    const { run, finish } = manualRuns();
    const d = dispatcher({ run, maxActivePerDestination: 1, maxQueuedPerDestination: 10 });
    const startedAt: string[] = [];
    void d.submit(task('d', 'u1', 'a'), { onStart: () => startedAt.push('a') });
    void d.submit(task('d', 'u2', 'b'), { onStart: () => startedAt.push('b') });
    expect(startedAt).toEqual(['a']);
    await finish('a');
    expect(startedAt).toEqual(['a', 'b']);
  });

  it('does not start a task whose partition is no longer held when its turn comes', async () => {
    const { run, started, finish } = manualRuns();
    const d = dispatcher({ run, maxActivePerDestination: 1, maxQueuedPerDestination: 10 });
    let held = true;
    void d.submit(task('d', 'u1', 'a'), { held: () => held });
    const queued = d.submit(task('d', 'u2', 'b'), { held: () => held }).catch((err: unknown) => err);
    const next = d.submit(task('d', 'u3', 'c'));
    held = false; // the consumer left the group while b waited
    await finish('a'); // started before: it finishes
    expect(await queued).toBeInstanceOf(WorkNotHeldError);
    expect(started).toEqual(['a', 'c']); // the lane goes on with the next task
    await finish('c');
    await next;
    expect(d.load('d')).toEqual({ active: 0, queued: 0 });
  });

  it('declines a task no longer held at once, leaving no lane behind', async () => {
    const { run, started } = manualRuns();
    const d = dispatcher({ run });
    const declined = await d.submit(task('d', 'u1', 'a'), { held: () => false }).catch((err: unknown) => err);
    expect(declined).toBeInstanceOf(WorkNotHeldError);
    expect(started).toEqual([]);
    expect((d as unknown as { lanes: Map<string, unknown> }).lanes.size).toBe(0);
  });

  it('passes a failure of the run function to the submitter', async () => {
    const d = dispatcher({
      maxActivePerDestination: 1,
      maxQueuedPerDestination: 1,
      run: async () => {
        throw new Error('kafka down');
      },
    });
    await expect(d.submit(task('d', 'u', 'm'))).rejects.toThrow('kafka down');
    expect(d.load('d')).toEqual({ active: 0, queued: 0 });
  });

  describe('with dead endpoints (slow lanes)', () => {
    const slowLimits = { maxTotal: 20, slowShare: 0.5, slowRunMs: 2_000, maxActivePerDestination: 4 };

    it('keeps any number of hung destinations to half the capacity, so a healthy one always starts', async () => {
      const { run, started } = manualRuns();
      const deferred: string[] = [];
      let now = 0;
      const d = dispatcher({
        ...slowLimits,
        run,
        defer: async (t) => void deferred.push(t.messageId),
        clock: { now: () => now },
      });
      // 8 destinations that never answer, 4 tasks each: the first wave starts everywhere.
      for (let k = 0; k < 8; k++)
        for (let i = 0; i < 4; i++) void d.submit(task(`dead${k}`, `u${i}`, `d${k}-${i}`));
      now += 3_000; // their requests have hung past slowRunMs: every one of those lanes is slow
      for (let k = 0; k < 8; k++)
        for (let i = 4; i < 8; i++) void d.submit(task(`dead${k}`, `u${i}`, `d${k}-${i}`));
      expect(deferred).toHaveLength(32); // slow lanes keep no queue and get no more room
      void d.submit(task('healthy', 'u1', 'h1'));
      expect(started).toContain('h1');
    });

    it('gives a slow lane only its share of the slow budget', () => {
      const { run, started } = manualRuns();
      let now = 0;
      const d = dispatcher({ ...slowLimits, maxTotal: 8, run, clock: { now: () => now } });
      for (let i = 0; i < 4; i++) void d.submit(task('a', `u${i}`, `a${i}`));
      for (let i = 0; i < 4; i++) void d.submit(task('b', `u${i}`, `b${i}`));
      now += 3_000; // both slow: a budget of 4, 2 each
      d.sweep();
      void d.submit(task('c', 'u0', 'c0'));
      now += 3_000; // c is slow too, and the budget (4) is spent by a and b
      expect(started.filter((m) => m.startsWith('c'))).toEqual(['c0']);
      void d.submit(task('c', 'u1', 'c1'));
      expect(started).not.toContain('c1');
    });

    it('defers the queue of a lane that turns slow on the next sweep, not at its next finished run', async () => {
      const { run } = manualRuns();
      const deferred: string[] = [];
      let now = 0;
      const d = dispatcher({
        ...slowLimits,
        run,
        defer: async (t) => void deferred.push(t.messageId),
        clock: { now: () => now },
      });
      for (let i = 0; i < 7; i++) void d.submit(task('stuck', `u${i}`, `s${i}`));
      expect(d.load('stuck')).toEqual({ active: 4, queued: 3 });
      now += 3_000;
      d.sweep();
      expect(deferred).toEqual(['s4', 's5', 's6']);
      expect(d.load('stuck')).toEqual({ active: 4, queued: 0 });
    });

    it('judges a lane by its requests, not by the hand-off to Kafka after them', async () => {
      const deferred: string[] = [];
      let now = 0;
      const handoffs = new Map<string, () => void>();
      // Requests that answer at once, hand-offs that Kafka (or a saturated event loop) holds up.
      const run = (t: DeliveryTask, requestsDone: (delivered: boolean) => void) =>
        new Promise<void>((resolve) => {
          requestsDone(false);
          handoffs.set(t.messageId, resolve);
        });
      const d = dispatcher({
        ...slowLimits,
        run,
        defer: async (t) => void deferred.push(t.messageId),
        clock: { now: () => now },
      });
      for (let i = 0; i < 7; i++) void d.submit(task('fast', `u${i}`, `f${i}`));
      now += 3_000; // the hand-offs have waited past slowRunMs
      d.sweep();
      handoffs.get('f0')!();
      await new Promise((r) => setImmediate(r));
      void d.submit(task('fast', 'u7', 'f7'));
      expect(deferred).toEqual([]); // not slow: its queue is kept
      expect(d.load('fast')).toEqual({ active: 4, queued: 3 });
    });

    describe('a slot is held for requests, and for the hand-off of what was not delivered', () => {
      it('frees it once the requests of a delivered task are over, while its attempt record is written', async () => {
        const { run, started, requests, handoffs, settle } = twoStepRuns();
        const d = dispatcher({ run, maxActivePerDestination: 1 });
        void d.submit(task('d', 'u0', 'a'));
        void d.submit(task('d', 'u1', 'b'));
        expect(started).toEqual(['a']);
        requests.get('a')!(true);
        expect(started).toEqual(['a', 'b']); // a's hand-off still pending
        expect(d.load('d')).toEqual({ active: 1, queued: 0 });
        handoffs.get('a')!();
        await settle();
        expect(d.load('d')).toEqual({ active: 1, queued: 0 });
      });

      it('keeps it through the hand-off of a task that failed (its retry), so failures start no more work', async () => {
        const { run, started, requests, handoffs, settle } = twoStepRuns();
        const d = dispatcher({ run, maxActivePerDestination: 1 });
        void d.submit(task('d', 'u0', 'a'));
        void d.submit(task('d', 'u1', 'b'));
        requests.get('a')!(false);
        expect(started).toEqual(['a']);
        handoffs.get('a')!();
        await settle();
        expect(started).toEqual(['a', 'b']);
      });

      it('keeps it in a slow lane, delivered or not: the slow budget counts hand-offs', async () => {
        const { run, started, requests } = twoStepRuns();
        let now = 0;
        const d = dispatcher({ ...slowLimits, run, maxActivePerDestination: 1, clock: { now: () => now } });
        void d.submit(task('slow', 'u0', 'a'));
        void d.submit(task('slow', 'u1', 'b'));
        now += 3_000; // past slowRunMs
        requests.get('a')!(true);
        expect(started).toEqual(['a']);
      });

      it('does not defer the next task of the same user when a delivered run ends in a lane that looks stalled', async () => {
        const { run, started, requests, handoffs, settle } = twoStepRuns();
        const deferred: string[] = [];
        let now = 0;
        const d = dispatcher({
          run,
          defer: async (t) => void deferred.push(t.messageId),
          clock: { now: () => now },
        });
        void d.submit(task('d', 'u2', 'c')); // a quick run first: the lane's average is 0 ms
        requests.get('c')!(true); // (its hand-off still going keeps the lane, and that average)
        void d.submit(task('d', 'u0', 'a'));
        void d.submit(task('d', 'u1', 'b'));
        void d.submit(task('d', 'u0', 'a2')); // waits for a, same user
        now += 600; // b in flight for 600 ms: more than 500 ms and 4x the average, so stalled
        requests.get('a')!(true);
        expect(deferred).toEqual([]); // a2 can start once a's hand-off is done
        handoffs.get('a')!();
        await settle();
        expect(started).toEqual(['c', 'a', 'b', 'a2']);
        expect(deferred).toEqual([]);
      });

      it('makes the next task of the same user wait for the whole run, hand-off included', async () => {
        const { run, started, requests, handoffs, settle } = twoStepRuns();
        const d = dispatcher({ run, maxActivePerDestination: 2 });
        void d.submit(task('d', 'u0', 'a'));
        requests.get('a')!(true);
        // The lane has no run holding a slot, but is kept: a's user still has a hand-off going.
        void d.submit(task('d', 'u0', 'a2'));
        void d.submit(task('d', 'u1', 'b'));
        expect(started).toEqual(['a', 'b']);
        handoffs.get('a')!();
        await settle();
        expect(started).toEqual(['a', 'b', 'a2']);
      });
    });

    it('serves retries before first attempts in a busy lane', async () => {
      const { run, started, finish } = manualRuns();
      const d = dispatcher({ run, maxActivePerDestination: 1, maxQueuedPerDestination: 10 });
      void d.submit(task('d', 'u0', 'first0'));
      void d.submit(task('d', 'u1', 'first1'));
      void d.submit({ ...task('d', 'u2', 'retry'), attempts: 1, dueAtMs: 0 });
      await finish('first0');
      expect(started).toEqual(['first0', 'retry']);
    });
  });

  it("keeps a user's order when its next task arrives with a token, before the lane's timer pumps", async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] }); // the lane's token timer stays pending
    try {
      const { run, started, finish } = manualRuns();
      let now = 0;
      const d = dispatcher({
        run,
        maxActivePerDestination: 10,
        maxQueuedPerDestination: 10,
        rateOf: () => 10,
        clock: { now: () => now },
      });
      void d.submit(task('d', 'u', 'a1')); // takes the one token
      void d.submit(task('d', 'u', 'a2')); // waits for a1
      await finish('a1'); // no token: a2 waits for the lane's timer
      now += 100; // a token is due, the timer has not fired yet
      void d.submit(task('d', 'u', 'a3'));
      expect(started).toEqual(['a1', 'a2']);
      expect(d.load('d')).toEqual({ active: 1, queued: 1 });
    } finally {
      jest.useRealTimers();
    }
  });

  it('starts the requests of a rate-limited destination at its rate, the rest waiting in its lane', async () => {
    const { run, started, finish } = manualRuns();
    let now = 0;
    const d = dispatcher({
      run,
      maxActivePerDestination: 100,
      maxQueuedPerDestination: 100,
      rateOf: (id) => (id === 'limited' ? 10 : undefined),
      clock: { now: () => now },
    });
    for (let i = 0; i < 5; i++) void d.submit(task('limited', `u${i}`, `l${i}`));
    void d.submit(task('free', 'u0', 'f0'));
    expect(started).toEqual(['l0', 'f0']); // a burst of 1 at 10/s; another destination is not held
    await finish('l0'); // answered (a request left hanging would make the lane stalled: see isStalled)
    now += 100;
    d.sweep();
    expect(started).toEqual(['l0', 'f0', 'l1']);
    await finish('l1');
    now += 1_000; // ten tokens' worth of time, but the bucket holds one
    d.sweep();
    expect(started).toEqual(['l0', 'f0', 'l1', 'l2']);
    expect(d.load('limited')).toEqual({ active: 1, queued: 2 });
  });
});
