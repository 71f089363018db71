import { LOOPBACK_NETWORKS, type TestApp } from '../support/app';
import { eventually } from '../support/eventually';
import { createDestination, createSource, sendTracking } from '../support/hookline';
import type { Receiver } from '../support/receiver';
import { testScope } from '../support/scope';

/**
 * The SSRF guard end to end on the real broker and registry: literal internal addresses refused
 * when a destination is created; a name resolving to loopback refused at delivery (dead-lettered
 * as blocked_address, no connection opened); the same URL delivered once the network is allowed.
 */
describe('SSRF guard', () => {
  const scope = testScope();
  /** Hookline as deployed: no allowed networks. */
  const strictApp = () => scope.app({ HOOKLINE_ALLOWED_NETWORKS: '' });

  async function destination(t: TestApp, url: string) {
    const src = await createSource(t, `source ${Math.random()}`);
    const destinationId = await createDestination(t, { sourceId: src.id, webhooks: [{ url }] });
    return { src, destinationId };
  }

  const localhostUrl = (r: Receiver) => `http://localhost:${new URL(r.url).port}/hook`;

  it('refuses every literal spelling of an internal address when a destination is created or updated', async () => {
    const t = await strictApp();
    const src = await createSource(t);
    const forms = [
      'http://127.0.0.1:8080/',
      'http://2130706433/',
      'http://0x7f.1/',
      'http://0177.0.0.1/',
      'http://[::ffff:127.0.0.1]/',
      'http://127.1/',
      'http://10.0.0.5/',
      'http://169.254.169.254/latest/meta-data/',
      'http://[fd00:ec2::254]/',
    ];
    for (const url of forms) {
      const res = await t.admin<{ error: string; message: string; issues: { path: string; code: string }[] }>(
        'POST',
        '/api/v1/destinations',
        {
          sourceId: src.id,
          name: 'probe',
          settings: { webhooks: [{ url: 'https://example.com/' }, { url }] },
        },
      );
      expect({ url, status: res.status, error: res.body.error }).toEqual({
        url,
        status: 400,
        error: 'validation_failed',
      });
      expect(res.body.issues).toEqual([
        { path: 'settings.webhooks.1.url', code: 'webhook_url_blocked', message: expect.any(String) },
      ]);
      expect(res.body.message).toMatch(/^settings\.webhooks\.1\.url: the URL's host is an? /);
    }
    const { destinationId } = await destination(t, 'https://example.com/');
    const patch = await t.admin('PATCH', `/api/v1/destinations/${destinationId}`, {
      settings: { webhooks: [{ url: 'http://0x7f.1/' }] },
    });
    expect(patch).toMatchObject({ status: 400, body: { error: 'validation_failed' } });
    expect((await t.admin('GET', '/api/v1/destinations')).body).toMatchObject({
      destinations: [{ id: destinationId, settings: { webhooks: [{ url: 'https://example.com/' }] } }],
    });
  });

  it('refuses localhost at delivery: dead-lettered as blocked_address, and no connection reaches the receiver', async () => {
    const t = await strictApp();
    const r = await scope.receiver();
    const { src, destinationId } = await destination(t, localhostUrl(r)); // a name: accepted here
    await sendTracking(t, src.writeKey, '/v1/track', { userId: 'u', event: 'Probe', messageId: 'm-ssrf' });

    const deadLetters = await eventually(
      async () => {
        const res = await t.admin<{ deadLetters: Record<string, unknown>[] }>(
          'GET',
          `/api/v1/dead-letters?destinationId=${destinationId}`,
        );
        return res.body.deadLetters?.length ? res.body.deadLetters : undefined;
      },
      { what: 'the blocked task on the dead-letter topic' },
    );
    expect(deadLetters).toHaveLength(1);
    expect(deadLetters[0]).toMatchObject({ messageId: 'm-ssrf', reason: 'blocked_address', attempts: 1 });
    expect(deadLetters[0]!.history).toEqual([
      { at: expect.any(String), durationMs: expect.any(Number), urlIndex: 0, result: 'blocked_address' },
    ]);

    const attempts = await eventually(async () => {
      const res = await t.admin<{ attempts: Record<string, unknown>[] }>(
        'GET',
        `/api/v1/destinations/${destinationId}/attempts`,
      );
      return res.body.attempts?.length ? res.body.attempts : undefined;
    });
    expect(attempts).toHaveLength(1); // not retried
    expect(attempts[0]).toMatchObject({ outcome: 'dead_lettered', detail: 'blocked_address' });
    expect(attempts[0]!.urls).toEqual([
      { urlIndex: 0, result: 'blocked_address', durationMs: expect.any(Number) },
    ]);
    // Nothing about the internal address in what the tenant can read.
    expect(JSON.stringify([deadLetters, attempts])).not.toMatch(/127\.0\.0\.1|::1|localhost|ECONN/);

    const metrics = await fetch(`${t.baseUrl}/metrics`).then((res) => res.text());
    expect(metrics).toMatch(/hookline_dead_lettered_total\{reason="blocked_address"\} 1/);
    expect(r.connections()).toBe(0);
    expect(r.requests).toHaveLength(0);
  });

  it('delivers to the same localhost URL once HOOKLINE_ALLOWED_NETWORKS allows loopback', async () => {
    // 127.0.0.0/8, plus ::1 where /etc/hosts maps localhost to it too: every address must pass.
    const t = await scope.app({ HOOKLINE_ALLOWED_NETWORKS: LOOPBACK_NETWORKS });
    const r = await scope.receiver();
    const { src } = await destination(t, localhostUrl(r));
    await sendTracking(t, src.writeKey, '/v1/track', { userId: 'u', event: 'Allowed', messageId: 'm-ok' });
    await eventually(() => r.requests.length === 1, { what: 'the delivery to localhost' });
    expect(JSON.parse(r.requests[0]!.body.toString('utf8'))).toMatchObject({ messageId: 'm-ok' });
  });
});
