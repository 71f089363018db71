import {
  backoffDelayMs,
  retriedFailureLevel,
  retryTransient,
  sleep,
  unlessStopped,
} from '../../../src/core/backoff';
import { KafkaUnavailableError, StoppedError, UndecodableRecordError } from '../../../src/core/errors';
import { silentLogger } from '../../../src/observability/logger';

describe('backoffDelayMs', () => {
  it.each([
    [1, 100],
    [2, 200],
    [3, 400],
    [6, 3_200],
    [7, 5_000],
    [1_000, 5_000],
  ])('after failure %i waits %i ms (doubling from 100 ms, at most 5 s)', (failures, waitMs) => {
    expect(backoffDelayMs(failures)).toBe(waitMs);
  });

  it('follows the policy it is given', () => {
    const policy = { initialDelayMs: 50, maxDelayMs: 120 };
    expect([1, 2, 3, 4].map((n) => backoffDelayMs(n, policy))).toEqual([50, 100, 120, 120]);
  });
});

describe('retryTransient', () => {
  const fast = { initialDelayMs: 1, maxDelayMs: 2 };
  const base = { isRunning: () => true, logger: silentLogger(), context: {}, backoff: fast };

  it('tries again while the failure is retriable, then returns the value', async () => {
    let calls = 0;
    const value = await retryTransient(async () => {
      calls++;
      if (calls < 3) throw new KafkaUnavailableError('down');
      return 'ok';
    }, base);
    expect({ value, calls }).toEqual({ value: 'ok', calls: 3 });
  });

  it('logs the first failure of a run at debug, the ones after it at warn', async () => {
    const levels: string[] = [];
    const logger = {
      ...silentLogger(),
      debug: () => void levels.push('debug'),
      warn: () => void levels.push('warn'),
    };
    let calls = 0;
    await retryTransient(
      async () => {
        if (++calls < 4) throw new KafkaUnavailableError('down');
      },
      { ...base, logger: logger as unknown as typeof base.logger },
    );
    expect(levels).toEqual(['debug', 'warn', 'warn']);
    expect([1, 2, 10].map(retriedFailureLevel)).toEqual(['debug', 'warn', 'warn']);
  });

  it('gives up at once on a failure that is not retriable', async () => {
    let calls = 0;
    const fail = () => {
      calls++;
      return Promise.reject(new UndecodableRecordError('corrupt'));
    };
    await expect(retryTransient(fail, base)).rejects.toBeInstanceOf(UndecodableRecordError);
    expect(calls).toBe(1);
  });

  it('stops after maxAttempts, or once the caller stops running', async () => {
    let calls = 0;
    const down = () => {
      calls++;
      return Promise.reject(new KafkaUnavailableError('down'));
    };
    await expect(retryTransient(down, { ...base, maxAttempts: 4 })).rejects.toThrow('down');
    expect(calls).toBe(4);
    calls = 0;
    await expect(retryTransient(down, { ...base, isRunning: () => calls < 2 })).rejects.toThrow('down');
    expect(calls).toBe(2);
  });
});

describe('stopping a wait', () => {
  /** Whether `promise` settled within a few turns of the event loop (no timer ran meanwhile). */
  const settledSoon = async (promise: Promise<unknown>) => {
    let settled = false;
    promise.then(
      () => (settled = true),
      () => (settled = true),
    );
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    return settled;
  };

  it('ends a sleep when its signal aborts, and one already aborted at once', async () => {
    const stop = new AbortController();
    const long = sleep(3_600_000, stop.signal);
    expect(await settledSoon(long)).toBe(false);
    stop.abort();
    expect(await settledSoon(long)).toBe(true);
    expect(await settledSoon(sleep(3_600_000, stop.signal))).toBe(true);
  });

  it('gives up on a wait that cannot be cancelled with a StoppedError, and passes on what it settles with', async () => {
    const stop = new AbortController();
    const never = unlessStopped(new Promise(() => {}), 'connecting the kafka admin', stop.signal);
    expect(await settledSoon(never)).toBe(false);
    stop.abort();
    await expect(never).rejects.toThrow(new StoppedError('connecting the kafka admin'));
    await expect(unlessStopped(Promise.resolve(7), 'x', new AbortController().signal)).resolves.toBe(7);
    await expect(unlessStopped(Promise.reject(new Error('refused')), 'x', undefined)).rejects.toThrow(
      'refused',
    );
  });

  it('stops retrying, mid-wait, once the signal aborts: the last failure is thrown', async () => {
    const stop = new AbortController();
    let calls = 0;
    const retrying = retryTransient(
      () => {
        calls++;
        return Promise.reject(new KafkaUnavailableError('down'));
      },
      {
        isRunning: () => true,
        logger: silentLogger(),
        context: {},
        backoff: { initialDelayMs: 3_600_000, maxDelayMs: 3_600_000 },
        signal: stop.signal,
      },
    );
    expect(await settledSoon(retrying)).toBe(false); // waiting an hour before the second try
    stop.abort();
    await expect(retrying).rejects.toThrow('down');
    expect(calls).toBe(1);
  });
});
