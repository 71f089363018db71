import { createHmac, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { ReceivedRequest } from '../support/receiver';
import { uniquePrefix, type TestApp } from '../support/app';
import { eventually } from '../support/eventually';
import { createSource, sendTracking } from '../support/hookline';
import { testScope } from '../support/scope';

/**
 * Standard Webhooks signatures on real receivers, checked with the official `standardwebhooks`
 * package: before a rotation (one secret), during the overlap (both), after it (the new one only),
 * across retries (same webhook-id), and X-Signature unchanged beside them.
 */
const scope = testScope();
const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
const hmac = (secret: string, body: Buffer) => createHmac('sha1', secret).update(body).digest('hex');

function verifies(secret: string, req: ReceivedRequest): boolean {
  const headers = {
    'webhook-id': String(req.headers['webhook-id']),
    'webhook-timestamp': String(req.headers['webhook-timestamp']),
    'webhook-signature': String(req.headers['webhook-signature']),
  };
  try {
    new Webhook(secret).verify(req.body.toString('utf8'), headers);
    return true;
  } catch {
    return false;
  }
}

async function track(t: TestApp, writeKey: string, messageId: string): Promise<void> {
  const res = await sendTracking(t, writeKey, '/v1/track', { userId: 'u1', event: 'Signed', messageId });
  expect(res.status).toBe(200);
}

describe('Standard Webhooks signatures', () => {
  it('signs before, during and after a secret rotation; stable webhook-id across retries', async () => {
    const prefix = uniquePrefix();
    const fast = { HOOKLINE_RETRY_SCHEDULE: '200ms', HOOKLINE_RETRY_CUTOFF: '5s' };
    const t = await scope.app({
      ...fast,
      HOOKLINE_TOPIC_PREFIX: prefix,
      HOOKLINE_SECRET_ROTATION_OVERLAP: '1h',
    });
    // The first request of each message fails once, so every message is also seen on a retry.
    const seen = new Set<string>();
    const r = await scope.receiver((req) => {
      const id = String(req.headers['webhook-id']);
      if (seen.has(id)) return { status: 200 };
      seen.add(id);
      return { status: 503 };
    });
    const src = await createSource(t);
    const first = newSecret();
    const shared = `sh-${randomBytes(8).toString('hex')}`;
    const created = await t.admin<{ id: string; settings: Record<string, unknown> }>(
      'POST',
      '/api/v1/destinations',
      {
        sourceId: src.id,
        name: 'standard',
        settings: { sharedSecret: shared, standardWebhooksSecret: first, webhooks: [{ url: r.url }] },
      },
    );
    expect(created.status).toBe(201);
    expect(created.body.settings).toMatchObject({ standardWebhooksSecretSet: true, sharedSecretSet: true });
    expect(JSON.stringify(created.body)).not.toContain(first);
    const bad = await t.admin('PATCH', `/api/v1/destinations/${created.body.id}`, {
      settings: { standardWebhooksSecret: 'whsec_tooshort' },
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).not.toContain('whsec_tooshort');

    const requestsOf = (messageNo: number) =>
      eventually(
        () => {
          const ofMessage = r.requests.filter((q) => q.body.includes(Buffer.from(`"m-${messageNo}"`)));
          return ofMessage.length >= 2 ? ofMessage : undefined;
        },
        { what: `the failed attempt and the retry of m-${messageNo}` },
      );

    // Before: one secret, one signature; the retry keeps the webhook-id.
    await track(t, src.writeKey, 'm-1');
    const before = await requestsOf(1);
    expect(before[1]!.headers['webhook-id']).toBe(before[0]!.headers['webhook-id']);
    for (const req of before) {
      expect(verifies(first, req)).toBe(true);
      expect(String(req.headers['webhook-signature']).split(' ')).toHaveLength(1);
      expect(req.headers['x-signature']).toBe(hmac(shared, req.body));
      expect(String(req.headers['webhook-id'])).toMatch(/^msg_[0-9a-f]{32}$/);
      expect(String(req.headers['webhook-timestamp'])).toMatch(/^\d{10}$/);
    }

    // During the overlap: signed with both; a receiver that has either secret verifies.
    const second = newSecret();
    const rotated = await t.admin<{ settings: { standardWebhooksRotatedAt?: string } }>(
      'PATCH',
      `/api/v1/destinations/${created.body.id}`,
      { settings: { standardWebhooksSecret: second } },
    );
    expect(rotated.status).toBe(200);
    expect(rotated.body.settings.standardWebhooksRotatedAt).toBeDefined();
    await track(t, src.writeKey, 'm-2');
    for (const req of await requestsOf(2)) {
      expect(String(req.headers['webhook-signature']).split(' ')).toHaveLength(2);
      expect(verifies(first, req)).toBe(true);
      expect(verifies(second, req)).toBe(true);
      expect(req.headers['x-signature']).toBe(hmac(shared, req.body));
    }
    await scope.stop(t);

    // After: a process whose overlap has passed signs with the new secret only.
    const after = await scope.app({
      ...fast,
      HOOKLINE_TOPIC_PREFIX: prefix,
      HOOKLINE_SECRET_ROTATION_OVERLAP: '1ms',
    });
    await track(after, src.writeKey, 'm-3');
    for (const req of await requestsOf(3)) {
      expect(String(req.headers['webhook-signature']).split(' ')).toHaveLength(1);
      expect(verifies(second, req)).toBe(true);
      expect(verifies(first, req)).toBe(false);
    }

    // Removed: no Standard Webhooks headers any more; X-Signature stays.
    const removed = await after.admin('PATCH', `/api/v1/destinations/${created.body.id}`, {
      settings: { standardWebhooksSecret: null },
    });
    expect(removed.body).toMatchObject({ settings: { standardWebhooksSecretSet: false } });
    await track(after, src.writeKey, 'm-4');
    for (const req of await requestsOf(4)) {
      expect(req.headers['webhook-signature']).toBeUndefined();
      expect(req.headers['webhook-id']).toBeUndefined();
      expect(req.headers['x-signature']).toBe(hmac(shared, req.body));
    }
  });
});
