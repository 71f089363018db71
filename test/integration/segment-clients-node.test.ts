import { sendWithAnalyticsNode } from '../support/segment/analytics-node';
import { expectClientCallsStored } from '../support/segment/expect-stored';
import { newRunId, useTrackingHarness } from '../support/segment/harness';

/**
 * The real @segment/analytics-node client, end to end: `host` set to a whole Hookline process,
 * every call it makes must arrive on `<prefix>.events` as it was sent.
 */
const h = useTrackingHarness();

describe('real @segment/analytics-node client', () => {
  it('identify, track, page, screen, group and alias arrive as sent (Basic auth and body writeKey)', async () => {
    const source = await h.createSource('node');
    const node = await sendWithAnalyticsNode({
      host: h.testApp.baseUrl,
      writeKey: source.writeKey,
      runId: newRunId('node'),
    });

    expect(node.requests).toHaveLength(1);
    expect(node.requests[0]!.body).toMatchObject({ writeKey: source.writeKey, sentAt: expect.any(String) });
    const records = await expectClientCallsStored(h.stored, node, {
      screen: true,
      sourceId: source.id,
      basicAuthUser: source.writeKey,
    });
    for (const r of records) {
      expect(r.value).toMatchObject({ context: { library: { name: '@segment/analytics-node' } } });
    }
  });

  it('the key only in the body (no Authorization header) is enough', async () => {
    const source = await h.createSource('node body key');
    const node = await sendWithAnalyticsNode({
      host: h.testApp.baseUrl,
      writeKey: source.writeKey,
      runId: newRunId('nodebody'),
      withoutAuthorizationHeader: true,
    });

    expect(node.requests.map((r) => r.authUser)).toEqual(['']);
    await expectClientCallsStored(h.stored, node, { screen: true, sourceId: source.id });
  });

  it('refuses a wrong write key with 401; the client reports it and nothing is stored', async () => {
    const runId = newRunId('nodebad');
    await expect(
      sendWithAnalyticsNode({ host: h.testApp.baseUrl, writeKey: 'not-a-write-key', runId }),
    ).rejects.toThrow(/"status":401/);
    await h.stored.catchUp();
    expect(h.stored.events.filter((r) => (r.key ?? '').startsWith(runId))).toEqual([]);
  });
});
