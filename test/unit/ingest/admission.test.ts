import {
  admissionDecision,
  IngestAdmission,
  type Admission,
  type AdmissionTimers,
} from '../../../src/ingest/admission';

const limits = { concurrency: 2, queue: 2, queueTimeoutMs: 500 };

describe('admissionDecision', () => {
  it.each([
    ['a free slot, nobody waiting', { running: 0, waiting: 0 }, 'run'],
    ['the last free slot', { running: 1, waiting: 0 }, 'run'],
    ['every slot taken, queue empty', { running: 2, waiting: 0 }, 'wait'],
    ['every slot taken, room in the queue', { running: 2, waiting: 1 }, 'wait'],
    ['every slot taken, queue full', { running: 2, waiting: 2 }, 'refuse'],
    // First come, first served: a slot freed while others wait goes to the first waiter.
    ['a free slot but others waiting', { running: 1, waiting: 1 }, 'wait'],
  ] as const)('%s → %s', (_case, state, expected) => {
    expect(admissionDecision(state, limits)).toBe(expected);
  });

  it.each([
    ['a free slot, however long it waited', { running: 1, waiting: 0 }, 10_000, 'run'],
    ['room in the queue, waited less than the timeout', { running: 2, waiting: 0 }, 499, 'wait'],
    ['room in the queue, waited the whole timeout already', { running: 2, waiting: 0 }, 500, 'refuse'],
  ] as const)('%s → %s', (_case, state, waitedMs, expected) => {
    expect(admissionDecision(state, limits, waitedMs)).toBe(expected);
  });

  it('refuses at once with no queue and no free slot', () => {
    expect(admissionDecision({ running: 2, waiting: 0 }, { ...limits, queue: 0 })).toBe('refuse');
  });
});

/** Timers the test fires by hand. */
function manualTimers() {
  const pending = new Map<number, () => void>();
  let next = 0;
  const timers: AdmissionTimers = {
    setTimeout: (callback) => {
      pending.set(++next, callback);
      return next;
    },
    clearTimeout: (handle) => void pending.delete(handle as number),
  };
  const fireAll = () => {
    const callbacks = [...pending.values()];
    pending.clear();
    callbacks.forEach((c) => c());
  };
  return { timers, fireAll, pending };
}

const admitted = (a: Admission) => {
  if (!a.admitted) throw new Error(`refused: ${a.reason}`);
  return a;
};

describe('IngestAdmission', () => {
  it('runs up to the concurrency, queues up to the queue, refuses the rest at once', async () => {
    const { timers } = manualTimers();
    const admission = new IngestAdmission({ limits, timers });
    const a = admitted(await admission.enter());
    admitted(await admission.enter());
    const waiting = [admission.enter(), admission.enter()];
    expect([admission.inFlight, admission.queued]).toEqual([2, 2]);
    expect(await admission.enter()).toEqual({ admitted: false, reason: 'queue_full' });

    a.release();
    const first = admitted(await waiting[0]!);
    expect([admission.inFlight, admission.queued]).toEqual([2, 1]);
    first.release();
    first.release(); // a second release is a no-op
    admitted(await waiting[1]!);
    expect([admission.inFlight, admission.queued]).toEqual([2, 0]);
  });

  it('refuses a request that waited the queue timeout, and forgets it', async () => {
    const { timers, fireAll, pending } = manualTimers();
    const admission = new IngestAdmission({ limits, timers });
    const a = admitted(await admission.enter());
    admitted(await admission.enter());
    const waiting = admission.enter();
    expect(pending.size).toBe(1);
    fireAll();
    expect(await waiting).toEqual({ admitted: false, reason: 'queue_timeout' });
    expect(admission.queued).toBe(0);
    a.release();
    expect(admission.inFlight).toBe(1);
  });

  it('refuses a request that waited the queue timeout before it asked, at once', async () => {
    const { timers, pending } = manualTimers();
    const admission = new IngestAdmission({ limits, timers });
    admitted(await admission.enter());
    admitted(await admission.enter());
    expect(await admission.enter(500)).toEqual({ admitted: false, reason: 'queue_timeout' });
    expect([admission.queued, pending.size]).toEqual([0, 0]);
  });

  it('clears the timer of a request admitted from the queue', async () => {
    const { timers, pending } = manualTimers();
    const admission = new IngestAdmission({ limits, timers });
    const a = admitted(await admission.enter());
    admitted(await admission.enter());
    const waiting = admission.enter();
    a.release();
    admitted(await waiting);
    expect(pending.size).toBe(0);
  });
});
