import { parseJson, stringifyJson, type JsonValue } from '../../../src/events/json';
import type { TrackingType } from '../../../src/events/types';
import { MAX_EVENT_DEPTH } from '../../../src/events/depth';
import { normalizeEvent, type BatchDefaults } from '../../../src/events/normalize';

const RECEIVED_AT = Date.parse('2024-03-01T10:00:00.000Z');

function run(raw: string | JsonValue, pathType?: TrackingType, defaults: BatchDefaults = {}) {
  return normalizeEvent(typeof raw === 'string' ? parseJson(raw) : raw, {
    sourceId: 'src_1',
    receivedAtMs: RECEIVED_AT,
    pathType,
    defaults,
    newMessageId: () => 'generated-id',
  });
}

describe('normalizeEvent', () => {
  /** A track call `levels` deep: properties hold arrays inside one another. */
  const trackAtDepth = (levels: number) =>
    `{"userId":"u1","event":"E","properties":{"x":${'['.repeat(levels - 2)}${']'.repeat(levels - 2)}}}`;

  it('takes an event nested as deep as the limit', () => {
    expect(run(trackAtDepth(MAX_EVENT_DEPTH), 'track').ok).toBe(true);
  });

  it.each([
    ['one level past the limit', trackAtDepth(MAX_EVENT_DEPTH + 1), 'track'],
    ['thousands of levels (JSON.stringify would overflow)', trackAtDepth(20_000), 'track'],
    ['not an object either: too deep comes first', '['.repeat(20_000) + ']'.repeat(20_000), undefined],
  ] as const)('refuses an event nested too deep, %s, with too_deep', (_name, text, pathType) => {
    expect(run(JSON.parse(text) as JsonValue, pathType)).toEqual({
      ok: false,
      rejection: {
        code: 'too_deep',
        reason: `event nests objects and arrays more than ${MAX_EVENT_DEPTH} levels deep`,
      },
    });
  });

  it('takes the depth the scan found instead of measuring it', () => {
    const options = { sourceId: 's', receivedAtMs: RECEIVED_AT, pathType: 'track', defaults: {} } as const;
    const raw = { userId: 'u1', event: 'E' };
    const newMessageId = () => 'm';
    expect(normalizeEvent(raw, { ...options, newMessageId, depth: MAX_EVENT_DEPTH + 1 }).ok).toBe(false);
    expect(normalizeEvent(raw, { ...options, newMessageId, depth: 1 }).ok).toBe(true);
  });

  it('normalises a track call', () => {
    expect(
      run('{"userId":"u1","event":"Signed Up","properties":{"plan":"pro"},"messageId":"m1"}', 'track'),
    ).toEqual({
      ok: true,
      event: {
        type: 'track',
        messageId: 'm1',
        userId: 'u1',
        event: 'Signed Up',
        properties: { plan: 'pro' },
        timestamp: '2024-03-01T10:00:00.000Z',
        receivedAt: '2024-03-01T10:00:00.000Z',
        sourceId: 'src_1',
      },
      // What the Avro record holds, computed on the way: not computed again when encoding.
      precomputed: {
        timestamp: Date.parse('2024-03-01T10:00:00.000Z'),
        receivedAt: Date.parse('2024-03-01T10:00:00.000Z'),
        properties: '{"plan":"pro"}',
      },
    });
  });

  it('generates a messageId when absent and reads the type of a batch item', () => {
    const result = run('{"type":"identify","anonymousId":"a1","traits":{"x":1}}');
    expect(result).toMatchObject({
      ok: true,
      event: { type: 'identify', messageId: 'generated-id', anonymousId: 'a1' },
    });
  });

  it.each([
    ['{"type":"identify","userId":"u1"}', 'identify', { type: 'identify', userId: 'u1' }],
    [
      '{"type":"page","userId":"u1","name":"Home","category":"Docs","properties":{"path":"/"}}',
      'page',
      { name: 'Home', category: 'Docs', properties: { path: '/' } },
    ],
    ['{"type":"screen","anonymousId":"a","name":"Settings"}', 'screen', { name: 'Settings' }],
    [
      '{"type":"group","userId":"u1","groupId":"g1","traits":{"n":1}}',
      'group',
      { groupId: 'g1', traits: { n: 1 } },
    ],
    ['{"type":"alias","userId":"u2","previousId":"u1"}', 'alias', { userId: 'u2', previousId: 'u1' }],
    [
      '{"type":"group","userId":123,"groupId":98765432109876543210}',
      'group',
      { userId: '123', groupId: '98765432109876543210' },
    ],
  ])('accepts %s', (raw, type, expected) => {
    expect(run(raw)).toMatchObject({ ok: true, event: { type, ...expected } });
  });

  it.each([
    ['[1,2]', 'not_an_object'],
    ['{"type":"purchase","userId":"u"}', 'unknown_type'],
    ['{"userId":"u"}', 'unknown_type'],
    ['{"type":"track","event":"E"}', 'missing_identity'],
    ['{"type":"track","userId":"","anonymousId":null,"event":"E"}', 'missing_identity'],
    ['{"type":"track","userId":"u"}', 'missing_event'],
    ['{"type":"group","userId":"u"}', 'missing_group_id'],
    ['{"type":"alias","userId":"u"}', 'missing_previous_id'],
    ['{"type":"alias","anonymousId":"a","previousId":"p"}', 'missing_user_id'],
    ['{"type":"track","userId":"u","event":"E","timestamp":"yesterday"}', 'invalid_timestamp'],
    ['{"type":"track","userId":"u","event":"E","properties":"nope"}', 'invalid_field'],
    ['{"type":"track","userId":{"id":1},"event":"E"}', 'invalid_field'],
    ['{"type":"track","userId":"u","event":42}', 'invalid_field'],
  ])('refuses %s with %s', (raw, code) => {
    expect(run(raw)).toMatchObject({ ok: false, rejection: { code } });
  });

  it('refuses an event over 32 KB and accepts one just under', () => {
    const event = (n: number) => ({
      type: 'track',
      userId: 'u',
      event: 'E',
      properties: { pad: 'x'.repeat(n) },
    });
    const overhead = stringifyJson(event(0)).length;
    expect(run(event(32 * 1024 - overhead))).toMatchObject({ ok: true });
    expect(run(event(32 * 1024 - overhead + 1))).toMatchObject({
      ok: false,
      rejection: { code: 'event_too_large' },
    });
  });

  it("merges batch context and integrations, the event's own keys winning", () => {
    const result = run(
      '{"type":"track","userId":"u","event":"E","context":{"ip":"1.2.3.4","library":{"name":"mine"}},"integrations":{"Webhooks":true}}',
      undefined,
      {
        context: parseJson('{"library":{"name":"analytics-go","version":"2.1.1"},"locale":"en"}') as never,
        integrations: parseJson('{"All":false}') as never,
      },
    );
    expect(result).toMatchObject({
      ok: true,
      event: {
        context: { ip: '1.2.3.4', library: { name: 'mine' }, locale: 'en' },
        integrations: { All: false, Webhooks: true },
      },
    });
  });

  it('corrects client clock skew with the batch sentAt (analytics-go v2 timestamps)', () => {
    // The client clock is 10 minutes slow.
    const result = run(
      '{"type":"track","userId":"u","event":"E","timestamp":"2024-03-01T09:45:00+0000"}',
      undefined,
      {
        sentAt: '2024-03-01T09:50:00+0000',
      },
    );
    expect(result).toMatchObject({
      ok: true,
      event: {
        timestamp: '2024-03-01T09:55:00.000Z',
        originalTimestamp: '2024-03-01T09:45:00.000Z',
        sentAt: '2024-03-01T09:50:00.000Z',
        receivedAt: '2024-03-01T10:00:00.000Z',
      },
    });
  });

  const sentAtCases: [string, string, JsonValue | undefined, string | undefined][] = [
    // name, the event's own sentAt (JSON), the batch's, the sentAt that corrects the skew
    ['a batch sentAt that is a number (epoch ms)', '', 1700000000000, undefined],
    ['a batch sentAt that is not a timestamp', '', 'yesterday', undefined],
    ['an event sentAt that is a number', ',"sentAt":12345', undefined, undefined],
    [
      'an event sentAt that is not a timestamp, the batch one is',
      ',"sentAt":"soon"',
      '2024-03-01T09:50:00Z',
      '2024-03-01T09:50:00.000Z',
    ],
    [
      'a valid event sentAt, the batch one is not',
      ',"sentAt":"2024-03-01T09:50:00Z"',
      17e11,
      '2024-03-01T09:50:00.000Z',
    ],
  ];
  it.each(sentAtCases)(
    'ignores a sentAt that is not a timestamp, keeping the event: %s',
    (_name, own, batchSentAt, sentAt) => {
      const raw = `{"type":"track","userId":"u","event":"E","timestamp":"2024-03-01T09:45:00Z"${own}}`;
      const result = run(raw, undefined, { sentAt: batchSentAt });
      expect(result.ok).toBe(true);
      const event = result.ok ? result.event : undefined;
      expect(event?.sentAt).toBe(sentAt);
      // Without a sentAt the client's timestamp stands; with one it is corrected (10 minutes here).
      expect(event?.timestamp).toBe(sentAt ? '2024-03-01T09:55:00.000Z' : '2024-03-01T09:45:00.000Z');
    },
  );

  it('keeps free-form numbers exactly as sent', () => {
    const result = run(
      '{"type":"track","userId":"u","event":"E","properties":{"big":12345678901234567890123,"f":2.0}}',
    );
    expect(result.ok && stringifyJson(result.event.type === 'track' ? result.event.properties : null)).toBe(
      '{"big":12345678901234567890123,"f":2.0}',
    );
  });
});
