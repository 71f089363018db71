import fc from 'fast-check';
import { parseJson, stringifyJson, type JsonObject } from '../../../src/events/json';
import type { HooklineEvent } from '../../../src/events/types';
import { serialisePayload } from '../../../src/routing/payload';
import { FUZZ } from './harness';

/** Free-form objects as clients send them: unicode keys, deep nesting, huge and odd numbers. */
const object = fc
  .dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 6 }), { maxKeys: 6 })
  .map((o) => parseJson(JSON.stringify(o)) as JsonObject);
const hugeNumbers = fc
  .constantFrom('12345678901234567890', '1.0', '-0', '6.02e23', '1e400')
  .map((n) => parseJson(`{"n":${n}}`) as JsonObject);
const text = fc.string({ maxLength: 200 });
const iso = fc.constant('2024-05-01T12:00:00.123Z');

const common = {
  messageId: text,
  userId: fc.option(text, { nil: undefined }),
  anonymousId: fc.option(text, { nil: undefined }),
  timestamp: iso,
  receivedAt: iso,
  sourceId: text,
  context: fc.option(fc.oneof(object, hugeNumbers), { nil: undefined }),
};
const event: fc.Arbitrary<HooklineEvent> = fc.oneof(
  fc.record({
    ...common,
    type: fc.constant('identify' as const),
    traits: fc.option(object, { nil: undefined }),
  }),
  fc.record({
    ...common,
    type: fc.constant('track' as const),
    event: text,
    properties: fc.option(fc.oneof(object, hugeNumbers), { nil: undefined }),
  }),
  fc.record({
    ...common,
    type: fc.constant('page' as const),
    name: fc.option(text, { nil: undefined }),
    properties: fc.option(object, { nil: undefined }),
  }),
  fc.record({ ...common, type: fc.constant('screen' as const), name: fc.option(text, { nil: undefined }) }),
  fc.record({
    ...common,
    type: fc.constant('group' as const),
    groupId: text,
    traits: fc.option(object, { nil: undefined }),
  }),
  fc.record({ ...common, type: fc.constant('alias' as const), userId: text, previousId: text }),
  fc.record({
    type: fc.constant('delete' as const),
    messageId: text,
    userId: text,
    timestamp: iso,
    receivedAt: iso,
    sourceId: text,
  }),
) as fc.Arbitrary<HooklineEvent>;

describe('payload builder under arbitrary events', () => {
  it('always produces JSON a receiver can parse, with the event’s identity and free-form objects intact', () => {
    fc.assert(
      fc.property(event, (e) => {
        const body = serialisePayload(e);
        const parsed = JSON.parse(body) as Record<string, unknown>;
        expect(parsed.type).toBe(e.type);
        if (e.type === 'delete') return;
        expect(parsed.messageId).toBe(e.messageId);
        // Objects reach the receiver exactly as the client wrote them (numbers included).
        if (e.type === 'track' && e.properties) expect(body).toContain(stringifyJson(e.properties));
        if (e.context) expect(body).toContain(stringifyJson(e.context));
      }),
      FUZZ,
    );
  });
});
