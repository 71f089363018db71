import { expectClientCallsStored } from '../support/segment/expect-stored';
import {
  GO_BUILD_TIMEOUT_MS,
  buildGoClient,
  runGoClient,
  type GoClient,
} from '../support/segment/go-clients';
import { newRunId, useTrackingHarness } from '../support/segment/harness';

/**
 * The real Segment Go clients, end to end: test/support/segment/go-v2 and go-v3 are built with
 * `go build` (cached by source hash under ~/.cache/hookline/segment-clients), pointed at a whole
 * Hookline process, and every call they make must arrive on `<prefix>.events` as it was sent.
 * No Go toolchain, or no module proxy on a first build, fails these tests: CI has both.
 */
const h = useTrackingHarness();
const binaries = new Map<GoClient, string>();

beforeAll(async () => {
  // One after the other: the second build reuses the standard library the first compiled.
  for (const client of ['go-v3', 'go-v2'] as const) binaries.set(client, await buildGoClient(client));
}, 2 * GO_BUILD_TIMEOUT_MS);

const run = (client: GoClient, writeKey: string, runId = newRunId(client.replace('go-', ''))) =>
  runGoClient(binaries.get(client)!, h.testApp.baseUrl, writeKey, runId);

describe('real Segment Go clients', () => {
  it('analytics-go v3 (v3.3.0): identify, track, page, screen, group and alias arrive as sent', async () => {
    const source = await h.createSource('go v3');
    const v3 = await run('go-v3', source.writeKey);

    // v3 sends its library in a batch-level context and RFC 3339 timestamps with nanoseconds.
    expect(v3.requests).toHaveLength(1);
    expect(v3.requests[0]!.body.context).toEqual({ library: { name: 'analytics-go', version: '3.0.0' } });
    const records = await expectClientCallsStored(h.stored, v3, {
      screen: true,
      sourceId: source.id,
      basicAuthUser: source.writeKey,
    });
    for (const r of records) {
      expect(r.value).toMatchObject({ context: { library: { name: 'analytics-go', version: '3.0.0' } } });
    }
  });

  it('analytics-go v2 (2016, `+0000` timestamps): identify, track, page, group and alias arrive as sent', async () => {
    const source = await h.createSource('go v2');
    const v2 = await run('go-v2', source.writeKey);

    // The v2 wire shape: batch-level context, messageId and sentAt; second-precision timestamps
    // with a colon-less offset.
    const secondsPlus0000 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+0000$/;
    expect(v2.requests).toHaveLength(1);
    expect(v2.requests[0]!.body).toMatchObject({
      context: { library: { name: 'analytics-go', version: '2.1.0' } },
      messageId: expect.any(String),
      sentAt: expect.stringMatching(secondsPlus0000),
    });
    for (const item of v2.requests[0]!.body.batch as { timestamp: string }[]) {
      expect(item.timestamp).toMatch(secondsPlus0000);
    }

    const records = await expectClientCallsStored(h.stored, v2, {
      screen: false,
      sourceId: source.id,
      basicAuthUser: source.writeKey,
    });
    for (const r of records) {
      expect(r.value).toMatchObject({
        originalTimestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/),
        context: { library: { name: 'analytics-go', version: '2.1.0' } },
      });
    }
  });

  it('refuses a wrong write key: analytics-go v3 sees 401s, exits non-zero, nothing is stored', async () => {
    const runId = newRunId('bad');
    await expect(run('go-v3', 'not-a-write-key', runId)).rejects.toThrow(/"status":401/);
    await h.stored.catchUp();
    expect(h.stored.events.filter((r) => (r.key ?? '').startsWith(runId))).toEqual([]);
  });
});
