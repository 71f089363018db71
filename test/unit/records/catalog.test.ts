import * as avro from 'avsc';
import { defaultSchemaDir, loadSchemaFiles } from '../../../src/avro/schema-files';
import { UndecodableRecordError } from '../../../src/core/errors';
import {
  DESTINATION_RECORD,
  SOURCE_RECORD,
  entityFromRecord,
  entityToRecord,
  type CatalogEntity,
} from '../../../src/records/catalog';
import { sampleDestination, sampleSource } from '../../fixtures/catalog';

const files = loadSchemaFiles(defaultSchemaDir());
const schemas = new Map(files.map((s) => [s.fullName, s.type]));

/** Entity → Avro binary → entity, through the real schema files. */
function roundTrip(entity: CatalogEntity): CatalogEntity {
  const { name, value } = entityToRecord(entity);
  const type = schemas.get(name)!;
  return entityFromRecord(name, type.fromBuffer(type.toBuffer(value)) as Record<string, unknown>);
}

describe('catalog entity ↔ Avro record mapping', () => {
  it('has the two catalog schemas in namespace io.hookline.catalog', () => {
    expect(schemas.has(SOURCE_RECORD)).toBe(true);
    expect(schemas.has(DESTINATION_RECORD)).toBe(true);
  });

  it.each([
    ['source', { kind: 'source', value: sampleSource() }],
    ['source without a key prefix', { kind: 'source', value: sampleSource({ writeKeyPrefix: undefined }) }],
    ['destination', { kind: 'destination', value: sampleDestination() }],
  ] as [string, CatalogEntity][])('a %s survives Avro binary encoding', (_case, entity) => {
    const value = JSON.parse(JSON.stringify(entity.value)) as unknown;
    expect(roundTrip(entity)).toStrictEqual({ kind: entity.kind, value });
  });

  it('keeps a URL disabled after a 410, and omits the mark on others', () => {
    const destination = sampleDestination();
    destination.settings.webhooks = [
      {
        url: 'https://gone.example/hook',
        headers: {},
        disabled: { at: '2024-05-01T10:00:00.000Z', reason: 'http_410' },
      },
      { url: 'https://ok.example/hook', headers: { 'X-Key': 'v' } },
    ];
    const back = roundTrip({ kind: 'destination', value: destination });
    expect(back).toStrictEqual({ kind: 'destination', value: destination });
  });

  it('reads a URL and headers the admin API now refuses (credentials, Keep-Alive...), written before it did', () => {
    const destination = sampleDestination();
    destination.settings.webhooks = [
      { url: 'https://user:pass@old.example/hook', headers: {} },
      {
        url: 'https://old.example/hook',
        headers: { 'Keep-Alive': 'timeout=5', Upgrade: 'h2c', Expect: '100-continue' },
      },
    ];
    const back = roundTrip({ kind: 'destination', value: destination });
    expect(back).toStrictEqual({ kind: 'destination', value: destination });
  });

  it('omits an absent shared secret instead of setting it to null', () => {
    const destination = sampleDestination();
    delete destination.settings.sharedSecret;
    const back = roundTrip({ kind: 'destination', value: destination });
    expect(back.kind === 'destination' && 'sharedSecret' in back.value.settings).toBe(false);
    expect(back).toStrictEqual({ kind: 'destination', value: destination });
  });

  it('keeps the Standard Webhooks secret, and the previous one with its rotation time', () => {
    const destination = sampleDestination();
    destination.settings.standardWebhooksSecret = 'hlenc:v1:00000000:new';
    destination.settings.standardWebhooksPrevious = {
      secret: 'hlenc:v1:00000000:old',
      rotatedAt: '2024-05-02T08:00:00.000Z',
    };
    expect(roundTrip({ kind: 'destination', value: destination })).toStrictEqual({
      kind: 'destination',
      value: destination,
    });
  });

  it('reads a destination written before the Standard Webhooks fields (BACKWARD compatible)', () => {
    const today = JSON.parse(files.find((f) => f.fullName === DESTINATION_RECORD)!.text) as {
      fields: { name: string; type: { fields: { name: string }[] } }[];
    };
    const older = structuredClone(today);
    const settings = older.fields.find((f) => f.name === 'settings')!.type;
    settings.fields = settings.fields.filter((f) => !f.name.startsWith('standardWebhooks'));
    const writer = avro.Type.forSchema(older as avro.Schema);
    const reader = schemas.get(DESTINATION_RECORD)!;
    const destination = sampleDestination();
    const bytes = writer.toBuffer(entityToRecord({ kind: 'destination', value: destination }).value);
    const value = reader.fromBuffer(bytes, reader.createResolver(writer)) as Record<string, unknown>;
    expect(entityFromRecord(DESTINATION_RECORD, value)).toStrictEqual({
      kind: 'destination',
      value: JSON.parse(JSON.stringify(destination)),
    });
  });

  it('stores timestamps as timestamp-millis longs', () => {
    const { value } = entityToRecord({ kind: 'source', value: sampleSource() });
    expect(value.createdAt).toBe(Date.parse('2024-05-01T12:00:00.123Z'));
    const text = JSON.parse(files.find((f) => f.fullName === SOURCE_RECORD)!.text) as {
      fields: { name: string; type: unknown }[];
    };
    expect(text.fields.find((f) => f.name === 'createdAt')!.type).toEqual({
      type: 'long',
      logicalType: 'timestamp-millis',
    });
  });

  it('stores headers as an Avro map and webhooks as an array of records', () => {
    const settings = (schemas.get(DESTINATION_RECORD) as avro.types.RecordType).fields.find(
      (f) => f.name === 'settings',
    )!;
    const webhooks = (settings.type as avro.types.RecordType).fields.find((f) => f.name === 'webhooks')!.type;
    expect(webhooks.typeName).toBe('array');
    const entry = (webhooks as avro.types.ArrayType).itemsType as avro.types.RecordType;
    expect(entry.fields.map((f) => [f.name, f.type.typeName])).toEqual([
      ['url', 'string'],
      ['headers', 'map'],
      ['disabledAt', 'union:unwrapped'],
      ['disabledReason', 'union:unwrapped'],
    ]);
  });

  it('refuses a record that is not a catalog record', () => {
    expect(() => entityFromRecord('io.hookline.events.Track', {})).toThrow(UndecodableRecordError);
  });
});
