import * as avro from 'avsc';
import { loadSchemaFiles, defaultSchemaDir } from '../../../src/avro/schema-files';
import { eventRecordName, fromAvroRecord, toAvroRecord } from '../../../src/records/event';
import { parseJson } from '../../../src/events/json';
import { UndecodableRecordError } from '../../../src/core/errors';
import type { EventType, HooklineEvent } from '../../../src/events/types';
import { sampleEvents } from '../../fixtures/events';

const schemas = new Map(loadSchemaFiles(defaultSchemaDir()).map((s) => [s.fullName, s.type]));

describe('event ↔ Avro record mapping', () => {
  it('has one schema per event type', () => {
    const types: EventType[] = ['identify', 'track', 'page', 'screen', 'group', 'alias', 'delete'];
    for (const type of types) expect(schemas.has(eventRecordName(type))).toBe(true);
  });

  it('declares the common fields identically in every tracking schema', () => {
    const common = [
      'messageId',
      'type',
      'anonymousId',
      'timestamp',
      'originalTimestamp',
      'sentAt',
      'receivedAt',
      'sourceId',
      'context',
      'integrations',
    ];
    const shapes = [...schemas.entries()]
      .filter(([name]) => name.startsWith('io.hookline.events.') && !name.endsWith('.Delete'))
      .map(([, type]) => {
        const fields = (type as avro.types.RecordType).fields;
        return JSON.stringify(common.map((name) => fields.find((f) => f.name === name)?.type.schema()));
      });
    expect(new Set(shapes).size).toBe(1);
  });

  it.each(sampleEvents().map((e) => [e.type, e] as const))(
    '%s survives Avro binary encoding',
    (_type, event) => {
      const type = schemas.get(eventRecordName(event.type))!;
      const bytes = type.toBuffer(toAvroRecord(event));
      const back = fromAvroRecord(
        eventRecordName(event.type),
        type.fromBuffer(bytes) as Record<string, unknown>,
      );
      expect(back).toEqual(event);
    },
  );

  it('omits absent optional fields instead of setting them to null', () => {
    const event: HooklineEvent = {
      type: 'track',
      messageId: 'm1',
      anonymousId: 'a1',
      event: 'Clicked',
      timestamp: '2024-01-01T00:00:00.000Z',
      receivedAt: '2024-01-01T00:00:01.000Z',
      sourceId: 's1',
    };
    const type = schemas.get(eventRecordName('track'))!;
    const back = fromAvroRecord(
      eventRecordName('track'),
      type.fromBuffer(type.toBuffer(toAvroRecord(event))) as Record<string, unknown>,
    );
    expect(back).toStrictEqual(event);
    expect(Object.keys(back)).not.toContain('properties');
  });

  it('keeps free-form number text exactly', () => {
    const [, track] = sampleEvents();
    const record = toAvroRecord(track!);
    expect(record.properties).toContain('"revenue":19.90');
    expect(record.properties).toContain('"orderNumber":123456789012345678901234567890');
    expect(parseJson(record.properties as string)).toEqual((track as { properties: unknown }).properties);
  });

  it.each([
    ['beyond what a Date holds', 8.64e15 + 1],
    ['before what a Date holds', -8.7e15],
  ])('refuses a timestamp %s as undecodable, with the field and the value', (_name, ms) => {
    const fields = {
      messageId: 'm-1',
      event: 'e',
      userId: 'u',
      timestamp: 0,
      receivedAt: ms,
      sourceId: 's',
    };
    // A RangeError (toISOString's) is no UndecodableRecordError: the router retried it for ever.
    expect(() => fromAvroRecord(eventRecordName('track'), fields)).toThrow(UndecodableRecordError);
    expect(() => fromAvroRecord(eventRecordName('track'), fields, {})).toThrow(
      `io.hookline.events.Track.receivedAt is not a valid timestamp: ${ms}`,
    );
  });

  it('prints every timestamp field as toISOString does, at the edges of what a Date holds too', () => {
    for (const ms of [
      0, -1, 1_700_000_000_123, -62_167_219_200_001, 253_402_300_800_000, 8.64e15, -8.64e15,
    ]) {
      const event = fromAvroRecord(eventRecordName('track'), {
        messageId: 'm-1',
        event: 'e',
        userId: 'u',
        timestamp: ms,
        originalTimestamp: ms,
        sentAt: ms,
        receivedAt: ms,
        sourceId: 's',
      });
      const iso = new Date(ms).toISOString();
      const { timestamp, originalTimestamp, sentAt, receivedAt } = event as unknown as Record<string, string>;
      expect([timestamp, originalTimestamp, sentAt, receivedAt]).toEqual([iso, iso, iso, iso]);
    }
  });

  describe('with the free-form texts (a payload is made of them)', () => {
    const record = (fields: Record<string, unknown>) => ({
      messageId: 'm-1',
      type: 'track',
      event: 'e',
      userId: 'u',
      timestamp: 0,
      receivedAt: 0,
      sourceId: 's',
      ...fields,
    });

    it('hands back the texts and parses only integrations onto the event', () => {
      const texts = {};
      const event = fromAvroRecord(
        eventRecordName('track'),
        record({ properties: '{"a":1.50}', context: '{ "ip": "1.2.3.4" }', integrations: '{"All":false}' }),
        texts,
      );
      expect(texts).toEqual({
        properties: '{"a":1.50}',
        context: '{ "ip": "1.2.3.4" }',
        integrations: '{"All":false}',
      });
      expect(event).toMatchObject({ type: 'track', integrations: { All: false } });
      expect(Object.keys(event)).not.toContain('properties');
      expect(Object.keys(event)).not.toContain('context');
    });

    it('accepts what JSON.parse accepts, a key written twice included, and keeps the text', () => {
      const texts: { properties?: string } = {};
      const properties = '{"a":1.0,"a":2}'; // the lossless parser's path: it takes the last value too
      expect(fromAvroRecord(eventRecordName('track'), record({ properties }))).toMatchObject({
        properties: { a: 2 },
      });
      fromAvroRecord(eventRecordName('track'), record({ properties }), texts);
      expect(texts.properties).toBe(properties);
    });

    it.each([
      ['invalid JSON', '{"a":', /Track\.properties is not valid JSON: /],
      ['a JSON array', '[1]', /Track\.properties is not a JSON object/],
      ['a JSON string', '"{}"', /Track\.properties is not a JSON object/],
    ])('refuses %s with the reason, as without the texts', (_name, properties, reason) => {
      const fields = record({ properties });
      expect(() => fromAvroRecord(eventRecordName('track'), fields, {})).toThrow(UndecodableRecordError);
      expect(() => fromAvroRecord(eventRecordName('track'), fields, {})).toThrow(reason);
      expect(() => fromAvroRecord(eventRecordName('track'), fields)).toThrow(reason);
    });
  });
});
