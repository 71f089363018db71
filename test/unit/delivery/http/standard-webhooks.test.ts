import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import {
  signingSecrets,
  standardWebhooksSignature,
  webhookIdFor,
} from '../../../../src/delivery/http/standard-webhooks';

const HOUR_MS = 3_600_000;

describe('signingSecrets', () => {
  const rotatedAtMs = Date.parse('2024-05-01T00:00:00Z');
  it.each([
    ['no secret', undefined, undefined, rotatedAtMs, []],
    ['a secret, never rotated', 'new', undefined, rotatedAtMs, ['new']],
    ['just rotated', 'new', 'old', rotatedAtMs, ['new', 'old']],
    ['within the overlap', 'new', 'old', rotatedAtMs + 24 * HOUR_MS - 1, ['new', 'old']],
    ['the overlap just over', 'new', 'old', rotatedAtMs + 24 * HOUR_MS, ['new']],
    ['long after', 'new', 'old', rotatedAtMs + 100 * HOUR_MS, ['new']],
    ['a previous secret but none now (removed)', undefined, 'old', rotatedAtMs, []],
  ])('%s', (_case, current, previousSecret, nowMs, expected) => {
    const previous = previousSecret === undefined ? undefined : { secret: previousSecret, rotatedAtMs };
    expect(signingSecrets({ current, previous, nowMs, overlapMs: 24 * HOUR_MS })).toEqual(expected);
  });
});

describe('standardWebhooksSignature', () => {
  const secret = (key: Buffer) => `whsec_${key.toString('base64')}`;
  const body = Buffer.from('{"type":"track","event":"Café ☕"}', 'utf8');
  const id = webhookIdFor('src_1:m-1:dst_1');

  it('is verified by the official standardwebhooks package, with each key during a rotation', () => {
    const current = randomBytes(32);
    const previous = randomBytes(24);
    const timestampS = Math.floor(Date.now() / 1_000);
    const signature = standardWebhooksSignature({ keys: [current, previous], id, timestampS, body });
    expect(signature.split(' ')).toHaveLength(2);
    const headers = {
      'webhook-id': id,
      'webhook-timestamp': String(timestampS),
      'webhook-signature': signature,
    };
    for (const key of [current, previous]) {
      expect(new Webhook(secret(key)).verify(body.toString('utf8'), headers)).toEqual(
        JSON.parse(body.toString()),
      );
    }
    expect(() => new Webhook(secret(randomBytes(32))).verify(body.toString('utf8'), headers)).toThrow();
  });

  it('signs a string body as its UTF-8 bytes', () => {
    const keys = [randomBytes(32)];
    expect(
      standardWebhooksSignature({ keys, id, timestampS: 1_764_000_000, body: body.toString('utf8') }),
    ).toBe(standardWebhooksSignature({ keys, id, timestampS: 1_764_000_000, body }));
  });

  it('signs once with keys that are equal', () => {
    const key = randomBytes(32);
    const signature = standardWebhooksSignature({ keys: [key, Buffer.from(key)], id, timestampS: 1, body });
    expect(signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
  });
});

describe('webhookIdFor', () => {
  it('is stable per task, differs between tasks, and is a plain header value', () => {
    const id = webhookIdFor('src_1:message with spaces and ünïcode:dst_1');
    expect(id).toBe(webhookIdFor('src_1:message with spaces and ünïcode:dst_1'));
    expect(id).not.toBe(webhookIdFor('src_1:message with spaces and ünïcode:dst_2'));
    expect(id).toMatch(/^msg_[0-9a-f]{32}$/);
  });
});
