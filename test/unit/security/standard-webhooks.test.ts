import { randomBytes } from 'node:crypto';
import { standardWebhooksKey } from '../../../src/security/standard-webhooks';

describe('standardWebhooksKey', () => {
  const key32 = randomBytes(32);
  it.each([
    ['whsec_ + base64 of 32 bytes', `whsec_${key32.toString('base64')}`, 32],
    ['24 bytes (the smallest accepted)', `whsec_${randomBytes(24).toString('base64')}`, 24],
    ['64 bytes (the largest accepted)', `whsec_${randomBytes(64).toString('base64')}`, 64],
    ['without padding', `whsec_${randomBytes(32).toString('base64').replace(/=+$/, '')}`, 32],
    ['23 bytes: too short', `whsec_${randomBytes(23).toString('base64')}`, undefined],
    ['65 bytes: too long', `whsec_${randomBytes(65).toString('base64')}`, undefined],
    ['no prefix', key32.toString('base64'), undefined],
    ['wrong prefix', `whsec-${key32.toString('base64')}`, undefined],
    ['base64url alphabet', `whsec_${'-_'.repeat(20)}`, undefined],
    ['spaces', `whsec_ ${key32.toString('base64')}`, undefined],
    ['empty key', 'whsec_', undefined],
  ])('%s', (_case, secret, bytes) => {
    expect(standardWebhooksKey(secret)?.length).toBe(bytes);
  });
});
