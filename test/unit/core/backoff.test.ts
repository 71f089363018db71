import { backoffDelayMs, retryTransient } from '../../../src/core/backoff';
import { KafkaUnavailableError, UndecodableRecordError } from '../../../src/core/errors';
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
