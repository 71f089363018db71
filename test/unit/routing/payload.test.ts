import fc from 'fast-check';
import { isJsonObject, parseJson, type JsonObject } from '../../../src/events/json';
import type { HooklineEvent, ScreenEvent } from '../../../src/events/types';
import {
  eventRecordName,
  fromAvroRecord,
  toAvroRecord,
  type FreeFormTexts,
} from '../../../src/records/event';
import { serialisePayload, shapePayload } from '../../../src/routing/payload';

function obj(text: string): JsonObject {
  return parseJson(text) as JsonObject;
}

const TS = '2024-05-01T12:00:00.123Z';
/** Fields every tracking event has; the ones that are not sent are here to prove they are dropped. */
const common = {
  messageId: 'm-1',
  timestamp: TS,
  originalTimestamp: '2024-05-01T11:59:59.000Z',
  sentAt: '2024-05-01T12:00:01.000Z',
  receivedAt: '2024-05-01T12:00:02.000Z',
  sourceId: 'src-1',
  integrations: { All: true },
};
const context = obj('{"ip":"203.0.113.9","device":{"model":"Pixel 8","type":"android"},"score":1.0}');
const CTX = '{"ip":"203.0.113.9","device":{"model":"Pixel 8","type":"android"},"score":1.0}';
const big = obj('{"big":12345678901234567890,"ratio":1.0,"neg":-0.5e-10}');
const BIG = '{"big":12345678901234567890,"ratio":1.0,"neg":-0.5e-10}';

describe('serialisePayload', () => {
  it.each<[string, HooklineEvent, string]>([
    [
      'page with everything',
      {
        ...common,
        type: 'page',
        userId: 'u-1',
        anonymousId: 'a-1',
        name: 'Home',
        category: 'Docs',
        properties: big,
        context,
      },
      `{"version":1,"type":"page","messageId":"m-1","anonymousId":"a-1","userId":"u-1","name":"Home","category":"Docs","properties":${BIG},"timestamp":"${TS}","context":${CTX}}`,
    ],
    [
      'page, anonymous, bare: properties and context default to {}',
      { ...common, type: 'page', anonymousId: 'a-1' },
      `{"version":1,"type":"page","messageId":"m-1","anonymousId":"a-1","properties":{},"timestamp":"${TS}","context":{}}`,
    ],
    [
      'screen with everything',
      {
        ...common,
        type: 'screen',
        userId: 'u-1',
        name: 'Settings',
        category: 'App',
        properties: big,
        context,
      },
      `{"version":1,"type":"screen","messageId":"m-1","userId":"u-1","name":"Settings","category":"App","properties":${BIG},"timestamp":"${TS}","context":${CTX}}`,
    ],
    [
      'screen, bare: name, category and properties only when present',
      { ...common, type: 'screen', userId: 'u-1' },
      `{"version":1,"type":"screen","messageId":"m-1","userId":"u-1","timestamp":"${TS}","context":{}}`,
    ],
    [
      'identify',
      {
        ...common,
        type: 'identify',
        userId: 'u-1',
        traits: obj('{"plan":"pro","seats":12345678901234567890,"vip":true}'),
        context,
      },
      `{"version":1,"type":"identify","messageId":"m-1","userId":"u-1","traits":{"plan":"pro","seats":12345678901234567890,"vip":true},"timestamp":"${TS}","context":${CTX}}`,
    ],
    [
      'identify, bare: traits {}',
      { ...common, type: 'identify', userId: 'u-1' },
      `{"version":1,"type":"identify","messageId":"m-1","userId":"u-1","traits":{},"timestamp":"${TS}","context":{}}`,
    ],
    [
      'track',
      {
        ...common,
        type: 'track',
        userId: 'u-1',
        anonymousId: 'a-1',
        event: 'Order Completed',
        properties: big,
        context,
      },
      `{"version":1,"type":"track","messageId":"m-1","anonymousId":"a-1","userId":"u-1","event":"Order Completed","properties":${BIG},"timestamp":"${TS}","context":${CTX}}`,
    ],
    [
      'track, anonymous, bare: no userId, properties {}',
      { ...common, type: 'track', anonymousId: 'a-1', event: 'Café ☕ "quoted"' },
      `{"version":1,"type":"track","messageId":"m-1","anonymousId":"a-1","event":"Café ☕ \\"quoted\\"","properties":{},"timestamp":"${TS}","context":{}}`,
    ],
    [
      'group',
      { ...common, type: 'group', userId: 'u-1', groupId: 'g-1', traits: big, context },
      `{"version":1,"type":"group","messageId":"m-1","userId":"u-1","groupId":"g-1","traits":${BIG},"timestamp":"${TS}","context":${CTX}}`,
    ],
    [
      'group, bare: traits {}',
      { ...common, type: 'group', userId: 'u-1', groupId: 'g-1' },
      `{"version":1,"type":"group","messageId":"m-1","userId":"u-1","groupId":"g-1","traits":{},"timestamp":"${TS}","context":{}}`,
    ],
    [
      'alias: "Previous ID" and "User ID" instead of userId',
      { ...common, type: 'alias', userId: 'u-1', previousId: 'a-1', anonymousId: 'a-1', context },
      `{"version":1,"type":"alias","messageId":"m-1","anonymousId":"a-1","Previous ID":"a-1","User ID":"u-1","timestamp":"${TS}","context":${CTX}}`,
    ],
    [
      'delete: only type, userId, timestamp',
      { type: 'delete', messageId: 'm-del', userId: 'u-1', timestamp: TS, receivedAt: TS, sourceId: 'src-1' },
      `{"type":"delete","userId":"u-1","timestamp":"${TS}"}`,
    ],
  ])('%s', (_name, event, expected) => {
    expect(serialisePayload(event)).toBe(expected);
  });

  it('shapes the same object it serialises (no version or messageId on delete)', () => {
    const shaped = shapePayload({
      type: 'delete',
      messageId: 'm',
      userId: 'u',
      timestamp: TS,
      receivedAt: TS,
      sourceId: 's',
    });
    expect(Object.keys(shaped)).toEqual(['type', 'userId', 'timestamp']);
  });

  it('does not alias the event: the shaped context is the event context, untouched', () => {
    const event: HooklineEvent = { ...common, type: 'track', userId: 'u', event: 'e', context };
    serialisePayload(event);
    expect(event.context).toBe(context);
    expect(Object.keys(event)).not.toContain('version');
  });
});

describe('serialisePayload with the record texts', () => {
  const jsonObject = fc
    .oneof(
      fc.json({ maxDepth: 3 }),
      fc.constantFrom(BIG, CTX, '{"2":1,"b":{"1":[1.50,-0,1e400]},"a":"\\u0001é"}'),
    )
    .map((text) => parseJson(text))
    .filter((value): value is JsonObject => isJsonObject(value));
  const eventOf = (
    type: 'track' | 'identify' | 'page' | 'screen' | 'group',
    free: JsonObject,
    ctx: JsonObject,
  ) =>
    ({
      ...common,
      type,
      userId: 'u-"1"',
      event: 'Order "Completed"',
      groupId: 'g-1',
      name: 'n',
      properties: free,
      traits: free,
      context: ctx,
    }) as unknown as HooklineEvent;

  it('is byte for byte the body made from the parsed objects, for records Hookline wrote', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('track', 'identify', 'page', 'screen', 'group') as fc.Arbitrary<'track'>,
        jsonObject,
        jsonObject,
        (type, free, ctx) => {
          const event = eventOf(type, free, ctx);
          const texts: FreeFormTexts = {};
          const decoded = fromAvroRecord(eventRecordName(type), toAvroRecord(event), texts);
          expect(texts.context).toBeDefined();
          const parsed = fromAvroRecord(eventRecordName(type), toAvroRecord(event));
          expect(serialisePayload(decoded, texts)).toBe(serialisePayload(parsed));
          expect(serialisePayload(decoded, texts)).toBe(serialisePayload(event));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('places a field that is only a text where the parsed object would be, and only then', () => {
    const screen: ScreenEvent = { ...common, type: 'screen', userId: 'u', name: 'Home' };
    expect(serialisePayload(screen, {})).toBe(serialisePayload(screen));
    expect(serialisePayload(screen, {})).not.toContain('properties');
    const withText = serialisePayload(screen, { properties: '{"a":1}', context: '{"b":2}' });
    expect(withText).toBe(serialisePayload({ ...screen, properties: { a: 1 }, context: { b: 2 } }));
  });

  it('serialises what the record has no text for, and keeps another writer’s spacing', () => {
    const event = eventOf('track', big, context);
    expect(serialisePayload(event, {})).toBe(serialisePayload(event));
    const spaced = serialisePayload(event, { properties: '{ "a": 1 }' });
    expect(spaced).toContain('"properties":{ "a": 1 },');
  });
});
