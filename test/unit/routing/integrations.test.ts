import type { Destination } from '../../../src/records/catalog-model';
import { parseJson, type JsonObject } from '../../../src/events/json';
import type { HooklineEvent } from '../../../src/events/types';
import { destinationsFor, integrationEnabled } from '../../../src/routing/integrations';

describe('integrationEnabled("Webhooks")', () => {
  it.each([
    [undefined, true],
    ['{}', true],
    ['{"All":true}', true],
    ['{"All":false}', false],
    ['{"All":false,"Webhooks":true}', true],
    ['{"Webhooks":false}', false],
    ['{"All":true,"Webhooks":false}', false],
    ['{"All":false,"Webhooks":{"option":1}}', true],
    ['{"webhooks":false}', true], // case sensitive
    ['{"All":false,"webhooks":true}', false],
    ['{"Mixpanel":false}', true],
  ])('%s → %s', (text, expected) => {
    expect(
      integrationEnabled(text === undefined ? undefined : (parseJson(text) as JsonObject), 'Webhooks'),
    ).toBe(expected);
  });
});

describe('destinationsFor', () => {
  const dest = (id: string, sourceId: string, enabled: boolean): Destination => ({
    id,
    sourceId,
    name: id,
    enabled,
    settings: { webhooks: [{ url: 'http://127.0.0.1/', headers: {} }] },
    createdAt: '',
    updatedAt: '',
  });
  const all = [
    dest('d1', 's1', true),
    dest('d2', 's1', false),
    dest('d3', 's2', true),
    dest('d4', 's1', true),
  ];
  const event = (integrations?: JsonObject): HooklineEvent => ({
    type: 'track',
    event: 'E',
    messageId: 'm',
    userId: 'u',
    timestamp: '',
    receivedAt: '',
    sourceId: 's1',
    ...(integrations && { integrations }),
  });

  it('picks the enabled destinations of the event source', () => {
    expect(destinationsFor(event(), all).map((d) => d.id)).toEqual(['d1', 'd4']);
  });

  it('picks none when integrations switch Webhooks off', () => {
    expect(destinationsFor(event({ All: false }), all)).toEqual([]);
  });

  it('routes delete notifications, which carry no integrations', () => {
    const del: HooklineEvent = {
      type: 'delete',
      messageId: 'm',
      userId: 'u',
      timestamp: '',
      receivedAt: '',
      sourceId: 's1',
    };
    expect(destinationsFor(del, all).map((d) => d.id)).toEqual(['d1', 'd4']);
  });
});
