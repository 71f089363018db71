import { parseJson, type JsonObject } from '../../src/events/json';
import type { WireRequest } from '../support/segment/calls';
import { expectClientCallsStored } from '../support/segment/expect-stored';
import { useTrackingHarness, type PostOptions } from '../support/segment/harness';
import {
  ANALYTICS_GO_V2_BATCH,
  ANALYTICS_GO_V3_BATCH,
  analyticsNodeBatch,
} from '../support/segment/wire-fixtures';

/**
 * Request bodies captured from real Segment clients (support/segment/wire-fixtures.ts), replayed
 * against the tracking API on a real broker: every event stored as the client sent it. The
 * clients themselves run in segment-clients-*.test.ts; these replays need no Go toolchain.
 */
type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const h = useTrackingHarness();

describe('tracking API: request shapes of real Segment clients, replayed', () => {
  const replay = async (runId: string, body: string, options: PostOptions, screen: boolean) => {
    const startedMs = Date.now();
    const res = await h.post('/v1/batch', body, options);
    expect([res.status, res.body]).toEqual([200, { success: true }]);
    const basicAuthUser = options.writeKey === null ? undefined : h.source.writeKey;
    const request: WireRequest = {
      method: 'POST',
      path: '/v1/batch',
      authUser: basicAuthUser ?? '',
      authPassword: '',
      contentType: 'application/json',
      status: res.status,
      body: parseJson(body) as JsonObject,
    };
    const run = { runId, requests: [request], startedMs, endedMs: Date.now() };
    return expectClientCallsStored(h.stored, run, { screen, sourceId: h.source.id, basicAuthUser });
  };

  it('analytics-go v2: Basic auth, batch-level context, messageId and sentAt, `+0000` timestamps', async () => {
    const records = await replay('go2', ANALYTICS_GO_V2_BATCH, {}, false);
    for (const r of records) {
      expect(r.value).toMatchObject({
        originalTimestamp: '2026-11-22T04:42:43.000Z',
        sentAt: '2026-11-22T04:42:43.000Z',
      });
    }
  });

  it('analytics-go v3: Basic auth, nanosecond timestamps', async () => {
    const records = await replay('go3', ANALYTICS_GO_V3_BATCH, {}, true);
    expect((records.find((r) => r.value.type === 'identify')!.value as Json).originalTimestamp).toBe(
      '2026-11-22T04:43:02.911Z',
    );
  });

  it('@segment/analytics-node: writeKey in the body, per-event context and integrations', async () => {
    await replay('node', analyticsNodeBatch(h.source.writeKey), { writeKey: null }, true);
  });
});
