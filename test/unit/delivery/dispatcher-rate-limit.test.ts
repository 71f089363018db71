import { dispatcher, task, twoStepRuns } from './dispatcher-support';

/**
 * A rate limit holds whatever the lane's health. A receiver that slows down or hangs is the one
 * the limit protects most: a slow or stalled lane keeps no queue, but starts no more than its
 * tokens allow either (what cannot start is deferred to the delay topics).
 */
describe('Dispatcher: a rate limit of 1/s, in a healthy, stalled or slow lane', () => {
  // slowRunMs 2 s; a lane is stalled once a request is in flight over 0.5 s (STALL_FLOOR_MS).
  const limits = { maxActivePerDestination: 4, slowRunMs: 2_000, rateOf: () => 1 };

  beforeEach(() => jest.useFakeTimers()); // the lane's token timer: the tests pump it with sweep()
  afterEach(() => jest.useRealTimers());

  /**
   * The lane's first task, `a`, took the one token at 0 ms; its requests end after
   * `aRequestsMs` (delivered), or never. At `atMs` a token is due again, and `b1` and `b2`
   * compete for it: `b1` starts, `b2` must wait for the next second (`queued` in a healthy lane,
   * `deferred` in one that keeps no queue).
   */
  const cases = [
    ['healthy: a answered in 20 ms', 20, 1_000, 'queued'],
    ['stalled: a in flight for 1 s', undefined, 1_000, 'deferred'],
    ['slow: a in flight for 2.5 s', undefined, 2_500, 'deferred'],
    ['slow by its average: a took 3 s', 3_000, 3_000, 'deferred'],
  ] as const;

  function setUp(aRequestsMs: number | undefined) {
    const runs = twoStepRuns();
    const deferred: string[] = [];
    const clock = { nowMs: 0, now: () => clock.nowMs };
    const d = dispatcher({
      ...limits,
      run: runs.run,
      defer: async (t) => void deferred.push(t.messageId),
      clock,
    });
    void d.submit(task('d', 'ua', 'a'));
    /** Moves the clock to `atMs`, ending a's requests on the way when they end. */
    const advanceTo = (atMs: number) => {
      if (aRequestsMs !== undefined && clock.nowMs < aRequestsMs) {
        clock.nowMs = aRequestsMs;
        runs.requests.get('a')!(true); // its hand-off still going keeps the lane and its average
      }
      clock.nowMs = atMs;
    };
    return { d, started: runs.started, deferred, advanceTo };
  }

  it.each(cases)('%s: a second task arriving at the token does not start', (_name, aRequestsMs, atMs, b2) => {
    const { d, started, deferred, advanceTo } = setUp(aRequestsMs);
    advanceTo(atMs);
    void d.submit(task('d', 'u1', 'b1'));
    void d.submit(task('d', 'u2', 'b2'));
    expect(started).toEqual(['a', 'b1']);
    expect(deferred).toEqual(b2 === 'deferred' ? ['b2'] : []);
    expect(d.load('d').queued).toBe(b2 === 'queued' ? 1 : 0);
  });

  it.each(cases)(
    '%s: of the tasks waiting in the lane, one starts at the token',
    (_name, aRequestsMs, atMs, b2) => {
      const { d, started, deferred, advanceTo } = setUp(aRequestsMs);
      void d.submit(task('d', 'u1', 'b1')); // no token left: both wait in the (then healthy) lane
      void d.submit(task('d', 'u2', 'b2'));
      expect(d.load('d').queued).toBe(2);
      advanceTo(atMs);
      d.sweep();
      expect(started).toEqual(['a', 'b1']);
      expect(deferred).toEqual(b2 === 'deferred' ? ['b2'] : []);
      expect(d.load('d').queued).toBe(b2 === 'queued' ? 1 : 0);
    },
  );
});
