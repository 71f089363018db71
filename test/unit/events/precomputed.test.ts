import { defaultSchemaDir, loadSchemaFiles } from '../../../src/avro/schema-files';
import { parseJson, type JsonObject, type JsonValue } from '../../../src/events/json';
import { normalizeEvent, type BatchDefaults } from '../../../src/events/normalize';
import type { TrackingType } from '../../../src/events/types';
import { eventRecordName, toAvroRecord } from '../../../src/records/event';

/**
 * normalizeEvent hands encoding what it computed anyway (timestamps as ms, free-form objects as
 * JSON text): the record, and so its bytes, must be exactly what encoding the event alone gives.
 */
const schemas = new Map(loadSchemaFiles(defaultSchemaDir()).map((s) => [s.fullName, s.type]));
const RECEIVED_AT = Date.parse('2024-03-01T10:00:00.000Z');

const cases: [string, string, TrackingType | undefined, BatchDefaults][] = [
  [
    'a track call with canonical timestamps',
    '{"type":"track","userId":"u1","event":"E","timestamp":"2024-03-01T09:59:58.000Z","sentAt":"2024-03-01T09:59:59.500Z","properties":{"a":1.5,"b":[1,{"c":null}]},"context":{"ip":"203.0.113.7"},"integrations":{"All":false}}',
    undefined,
    {},
  ],
  [
    'analytics-go v2 timestamps and a batch sentAt',
    '{"type":"identify","anonymousId":"a1","timestamp":"2024-03-01T09:59:58+0000","traits":{"email":"x@example.com"}}',
    undefined,
    { sentAt: '2024-03-01T10:00:03+01:00' },
  ],
  [
    'batch context and integrations merged with the event’s own',
    '{"type":"page","userId":"u1","name":"Home","context":{"locale":"en"},"properties":{"path":"/"}}',
    undefined,
    { context: { ip: '1.2.3.4' }, integrations: { All: true } },
  ],
  [
    'batch context only',
    '{"type":"screen","userId":"u1","category":"c","originalTimestamp":"2024-03-01T09:00:00.123456Z"}',
    undefined,
    { context: { app: { name: 'x' } } },
  ],
  [
    'lossless numbers and a numeric userId',
    '{"type":"group","userId":12345678901234567890,"groupId":"g","traits":{"n":1.0,"big":98765432109876543210}}',
    undefined,
    {},
  ],
  [
    'an alias from the path type',
    '{"userId":"u2","previousId":"u1","sentAt":"2024-03-01T10:00:00.000Z"}',
    'alias',
    {},
  ],
  ['no timestamps at all', '{"userId":"u1","event":"E"}', 'track', {}],
];

describe('normalizeEvent precomputed fields', () => {
  it.each(cases)('%s: encode the same record', (_name, text, pathType, defaults) => {
    const result = normalizeEvent(parseJson(text) as JsonValue, {
      sourceId: 'src_1',
      receivedAtMs: RECEIVED_AT,
      pathType,
      defaults,
      newMessageId: () => 'generated',
    });
    if (!result.ok) throw new Error(result.rejection.reason);
    const plain = toAvroRecord(result.event);
    const fast = toAvroRecord(result.event, result.precomputed);
    expect(fast).toEqual(plain);
    const type = schemas.get(eventRecordName(result.event.type))!;
    expect(type.toBuffer(fast).equals(type.toBuffer(plain))).toBe(true);
  });

  it('does not hand over the text of a merged object (it is not the client’s)', () => {
    const result = normalizeEvent(parseJson('{"userId":"u","event":"E","context":{"a":1}}') as JsonObject, {
      sourceId: 'src_1',
      receivedAtMs: RECEIVED_AT,
      pathType: 'track',
      defaults: { context: { b: 2 } },
      newMessageId: () => 'generated',
    });
    expect(result.ok && result.precomputed.context).toBeUndefined();
  });
});
