import { AttemptLog } from '../../../src/operations/attempt-log';
import type { AttemptEntry } from '../../../src/records/delivery-attempt';

function attempt(n: number, overrides: Partial<AttemptEntry> = {}): AttemptEntry {
  return {
    taskId: `src:m${n}:dst_a`,
    destinationId: 'dst_a',
    sourceId: 'src',
    messageId: `m${n}`,
    eventType: 'track',
    attempt: 1,
    atMs: n * 1_000,
    durationMs: 3,
    outcome: 'delivered',
    urls: [{ urlIndex: 0, result: 'success', status: 200, durationMs: 3 }],
    ...overrides,
  };
}

describe('AttemptLog', () => {
  it('keeps the last N attempts per destination, newest first', () => {
    const log = new AttemptLog({ perDestination: 3 });
    for (let n = 1; n <= 5; n++) log.add(attempt(n));
    log.add(attempt(6, { destinationId: 'dst_b' }));
    expect(log.query('dst_a', { limit: 10 }).map((a) => a.messageId)).toEqual(['m5', 'm4', 'm3']);
    expect(log.query('dst_b', { limit: 10 }).map((a) => a.messageId)).toEqual(['m6']);
    expect(log.query('dst_none', { limit: 10 })).toEqual([]);
    expect(log.has('dst_b')).toBe(true);
    expect(log.destinationCount).toBe(2);
  });

  it.each([
    ['a message', { messageId: 'm2' }, ['m2/2', 'm2/1']],
    ['an outcome', { outcome: 'dead_lettered' as const }, ['m3/1']],
    ['both', { messageId: 'm2', outcome: 'retry_scheduled' as const }, ['m2/1']],
    ['a limit', { limit: 2 }, ['m3/1', 'm2/2']],
  ])('filters by %s', (_case, query, expected) => {
    const log = new AttemptLog({ perDestination: 10 });
    log.add(attempt(1));
    log.add(attempt(2, { outcome: 'retry_scheduled', detail: '10s' }));
    log.add(attempt(2, { attempt: 2, atMs: 2_500 }));
    log.add(attempt(3, { outcome: 'dead_lettered', detail: 'http_410' }));
    const found = log.query('dst_a', { limit: 10, ...query });
    expect(found.map((a) => `${a.messageId}/${a.attempt}`)).toEqual(expected);
  });

  it('orders by attempt time, then by arrival', () => {
    const log = new AttemptLog({ perDestination: 10 });
    log.add(attempt(2));
    log.add(attempt(1));
    log.add(attempt(9, { atMs: 2_000 }));
    expect(log.query('dst_a', { limit: 10 }).map((a) => a.messageId)).toEqual(['m9', 'm2', 'm1']);
  });
});
