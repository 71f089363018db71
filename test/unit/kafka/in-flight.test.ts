import { InFlight } from '../../../src/kafka/in-flight';

describe('InFlight', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('wakes a live room waiter at once when a message is done, after other waits timed out', async () => {
    // A consumer waits for room in 1 s turns while a hung destination holds every slot. The turns
    // that timed out stayed queued, and `done` woke one of them instead of the waiter: it started
    // the next message only at its own timeout, a second later, once per stale turn.
    const inFlight = new InFlight(1);
    inFlight.add();
    for (let turn = 0; turn < 3; turn++) {
      const waited = inFlight.room(1_000);
      await jest.advanceTimersByTimeAsync(1_000);
      await waited;
    }
    let woken = false;
    void inFlight.room(1_000).then(() => (woken = true));
    inFlight.done();
    await jest.advanceTimersByTimeAsync(0);
    expect(woken).toBe(true);
    expect(inFlight.full).toBe(false);
  });

  it('room resolves after its timeout when nothing is done', async () => {
    const inFlight = new InFlight(1);
    inFlight.add();
    let woken = false;
    void inFlight.room(100).then(() => (woken = true));
    await jest.advanceTimersByTimeAsync(99);
    expect(woken).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(woken).toBe(true);
  });
});
