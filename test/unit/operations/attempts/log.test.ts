import { RegistryUnavailableError, UndecodableRecordError } from '../../../../src/core/errors';
import { AttemptLog } from '../../../../src/operations/attempts/log';
import type { AttemptEntry } from '../../../../src/records/delivery-attempt';

/** A log whose records are JSON (the real one's are Avro: records/delivery-attempt.ts). */
function jsonLog(perDestination: number, undecodable: unknown[] = [], maxBytes = 1 << 30) {
  const log = new AttemptLog({
    perDestination,
    maxBytes,
    decode: async (bytes) => {
      const text = bytes.toString('utf8');
      if (text === 'registry away') throw new RegistryUnavailableError('registry away');
      if (!text.startsWith('{')) throw new UndecodableRecordError(`not an attempt: ${text}`);
      return JSON.parse(text) as AttemptEntry;
    },
    onUndecodable: (err) => undecodable.push(err),
  });
  const add = (entry: AttemptEntry) => log.addRecord(entry.destinationId, Buffer.from(JSON.stringify(entry)));
  return { log, add };
}

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
  it('keeps the last N attempts per destination, newest first', async () => {
    const { log, add } = jsonLog(3);
    for (let n = 1; n <= 5; n++) add(attempt(n));
    add(attempt(6, { destinationId: 'dst_b' }));
    expect((await log.query('dst_a', { limit: 10 })).map((a) => a.messageId)).toEqual(['m5', 'm4', 'm3']);
    expect((await log.query('dst_b', { limit: 10 })).map((a) => a.messageId)).toEqual(['m6']);
    expect(await log.query('dst_none', { limit: 10 })).toEqual([]);
    expect(log.has('dst_b')).toBe(true);
    expect(log.destinationCount).toBe(2);
  });

  it('finds in one call whether a destination is known and its matching attempts (the route’s question)', async () => {
    const { log, add } = jsonLog(3);
    add(attempt(1));
    add(attempt(2, { outcome: 'retry_scheduled' }));
    expect(await log.find('dst_none', { limit: 10 })).toEqual({ known: false, attempts: [] });
    const found = await log.find('dst_a', { limit: 10, outcome: 'retry_scheduled' });
    expect(found.known).toBe(true);
    expect(found.attempts.map((a) => a.messageId)).toEqual(['m2']);
    // Known, though nothing matches: the route answers 200 with no attempts, not 404.
    expect(await log.find('dst_a', { limit: 10, messageId: 'm9' })).toEqual({ known: true, attempts: [] });
  });

  it.each([
    ['a message', { messageId: 'm2' }, ['m2/2', 'm2/1']],
    ['an outcome', { outcome: 'dead_lettered' as const }, ['m3/1']],
    ['both', { messageId: 'm2', outcome: 'retry_scheduled' as const }, ['m2/1']],
    ['a limit', { limit: 2 }, ['m3/1', 'm2/2']],
  ])('filters by %s', async (_case, query, expected) => {
    const { log, add } = jsonLog(10);
    add(attempt(1));
    add(attempt(2, { outcome: 'retry_scheduled', detail: '10s' }));
    add(attempt(2, { attempt: 2, atMs: 2_500 }));
    add(attempt(3, { outcome: 'dead_lettered', detail: 'http_410' }));
    const found = await log.query('dst_a', { limit: 10, ...query });
    expect(found.map((a) => `${a.messageId}/${a.attempt}`)).toEqual(expected);
  });

  it('orders by attempt time, then by arrival', async () => {
    const { log, add } = jsonLog(10);
    add(attempt(2));
    add(attempt(1));
    add(attempt(9, { atMs: 2_000 }));
    expect((await log.query('dst_a', { limit: 10 })).map((a) => a.messageId)).toEqual(['m9', 'm2', 'm1']);
  });

  it('leaves an undecodable record out of the answer, and says so', async () => {
    const undecodable: unknown[] = [];
    const { log, add } = jsonLog(10, undecodable);
    add(attempt(1));
    log.addRecord('dst_a', Buffer.from('garbage'));
    add(attempt(2));
    expect((await log.query('dst_a', { limit: 10 })).map((a) => a.messageId)).toEqual(['m2', 'm1']);
    expect(undecodable).toEqual([expect.any(UndecodableRecordError)]);
  });

  it('fails the query when a record cannot be decoded now (registry away), rather than leave it out', async () => {
    const { log, add } = jsonLog(10);
    add(attempt(1));
    log.addRecord('dst_a', Buffer.from('registry away'));
    await expect(log.query('dst_a', { limit: 10 })).rejects.toBeInstanceOf(RegistryUnavailableError);
  });
});
