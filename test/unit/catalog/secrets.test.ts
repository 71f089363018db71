import { nextStandardWebhooks } from '../../../src/catalog/secrets';

describe('nextStandardWebhooks', () => {
  const now = '2024-05-02T00:00:00.000Z';
  const earlier = { secret: 'older', rotatedAt: '2024-05-01T00:00:00.000Z' };
  it.each([
    ['none, kept', {}, undefined, {}],
    ['none, set: no previous', {}, 'new', { standardWebhooksSecret: 'new' }],
    ['none, removed', {}, null, {}],
    ['set, kept', { standardWebhooksSecret: 'cur' }, undefined, { standardWebhooksSecret: 'cur' }],
    [
      'set, kept with its previous',
      { standardWebhooksSecret: 'cur', standardWebhooksPrevious: earlier },
      undefined,
      { standardWebhooksSecret: 'cur', standardWebhooksPrevious: earlier },
    ],
    [
      'set, rotated: the current becomes previous, now',
      { standardWebhooksSecret: 'cur' },
      'new',
      { standardWebhooksSecret: 'new', standardWebhooksPrevious: { secret: 'cur', rotatedAt: now } },
    ],
    [
      'rotated again: only the last previous is kept',
      { standardWebhooksSecret: 'cur', standardWebhooksPrevious: earlier },
      'new',
      { standardWebhooksSecret: 'new', standardWebhooksPrevious: { secret: 'cur', rotatedAt: now } },
    ],
    ['removed: both go', { standardWebhooksSecret: 'cur', standardWebhooksPrevious: earlier }, null, {}],
  ])('%s', (_case, current, change, expected) => {
    expect(nextStandardWebhooks(current, change, now)).toStrictEqual(expected);
  });
});
