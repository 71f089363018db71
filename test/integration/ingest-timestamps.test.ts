import { newRunId, useTrackingHarness } from '../support/segment/harness';

/**
 * The tracking API's timestamps on a real broker: what a request stores on `<prefix>.events`,
 * read back and decoded as the app does. One ingest-only process for the file.
 */
type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const h = useTrackingHarness();
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('tracking API: timestamps', () => {
  it('accepts `+0000` (analytics-go v2), stores ISO UTC with ms, and corrects client clock skew with sentAt', async () => {
    const run = newRunId();
    const startedMs = Date.now();
    const res = await h.post('/v1/batch', {
      sentAt: '2024-05-01T12:00:10+0000', // the client's clock: 10 s after the first event
      batch: [
        {
          type: 'track',
          userId: `${run}-u`,
          messageId: `${run}-v2`,
          event: 'E',
          timestamp: '2024-05-01T12:00:00+0000',
        },
        {
          type: 'track',
          userId: `${run}-u`,
          messageId: `${run}-nano`,
          event: 'E',
          timestamp: '2024-05-01T17:29:59.123456789+05:30',
        },
        // An event's own sentAt wins over the batch's.
        {
          type: 'track',
          userId: `${run}-u`,
          messageId: `${run}-own`,
          event: 'E',
          timestamp: '2024-05-01T12:00:00.500Z',
          sentAt: '2024-05-01T12:00:01.000Z',
        },
        { type: 'track', userId: `${run}-u`, messageId: `${run}-bad`, event: 'E', timestamp: 'yesterday' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.rejected).toEqual([
      {
        index: 3,
        messageId: `${run}-bad`,
        code: 'invalid_timestamp',
        reason: expect.stringContaining('"timestamp"'),
      },
    ]);
    const records = await h.storedOfRun(run, 3);
    const byId = new Map(records.map((r) => [r.value.messageId, r.value as Json]));
    const check = (id: string, original: string, sentAt: string, skewMs: number) => {
      const e = byId.get(id);
      expect([id, e.originalTimestamp, e.sentAt]).toEqual([id, original, sentAt]);
      expect(e.timestamp).toMatch(ISO_MS);
      expect(Date.parse(e.timestamp)).toBe(Date.parse(e.receivedAt) - skewMs);
      expect(Date.parse(e.receivedAt)).toBeGreaterThanOrEqual(startedMs);
    };
    check(`${run}-v2`, '2024-05-01T12:00:00.000Z', '2024-05-01T12:00:10.000Z', 10_000);
    check(`${run}-nano`, '2024-05-01T11:59:59.123Z', '2024-05-01T12:00:10.000Z', 10_877);
    check(`${run}-own`, '2024-05-01T12:00:00.500Z', '2024-05-01T12:00:01.000Z', 500);
  });
});
