import type { Computation } from '../../../src/audiences/computations';
import { announcementIdentify } from '../../../src/audiences/identify';

const NOW = Date.parse('2024-05-01T12:00:00.000Z');
const audience: Computation = { class: 'audience', id: 'aud_1', sourceId: 'src_1', key: 'big_spenders' };
const trait: Computation = {
  class: 'trait',
  id: 'ctr_1',
  sourceId: 'src_1',
  key: 'order_count',
  compute: { lastTrait: 'x' },
};

describe('announcementIdentify', () => {
  it.each([
    [audience, true, { userId: 'u1', anonymousId: 'a1' }, { userId: 'u1' }, 'audience'],
    [audience, false, { anonymousId: 'a1' }, { anonymousId: 'a1' }, 'audience'],
    [trait, 7, { userId: 'u1' }, { userId: 'u1' }, 'trait'],
  ] as const)('%j = %j for %j', (computation, value, ids, expectedIds, computationClass) => {
    const event = announcementIdentify(
      { computation, value },
      { sourceId: 'src_1', ...ids },
      NOW,
      () => 'm-1',
    );
    expect(event).toEqual({
      type: 'identify',
      messageId: 'm-1',
      ...expectedIds,
      timestamp: '2024-05-01T12:00:00.000Z',
      receivedAt: '2024-05-01T12:00:00.000Z',
      sourceId: 'src_1',
      traits: { [computation.key]: value },
      context: {
        personas: {
          computation_class: computationClass,
          computation_id: computation.id,
          computation_key: computation.key,
          namespace: 'spaces',
          space_id: 'src_1',
        },
      },
    });
  });

  it('a fresh messageId each time', () => {
    const a = announcementIdentify(
      { computation: audience, value: true },
      { sourceId: 's', userId: 'u' },
      NOW,
    );
    const b = announcementIdentify(
      { computation: audience, value: true },
      { sourceId: 's', userId: 'u' },
      NOW,
    );
    expect(a.messageId).not.toBe(b.messageId);
  });
});
