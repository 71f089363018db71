import { DEFAULT_RETRY_SCHEDULE_MS } from '../../src/config/retry';
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import * as avro from 'avsc';
import { Kafka } from 'kafkajs';
import { AvroCodec } from '../../src/avro/codec';
import { defaultSchemaDir, loadSchemaFiles, type SchemaFile } from '../../src/avro/schema-files';
import { frame } from '../../src/avro/wire';
import { EventCodec, eventRecordName } from '../../src/records/event';
import { UndecodableRecordError } from '../../src/core/errors';
import { producerSettings } from '../../src/kafka/client';
import { ensureTopics } from '../../src/kafka/topics';
import { silentLogger } from '../../src/observability/logger';
import { sampleEvents } from '../fixtures/events';
import { clusterFromEnv, uniquePrefix } from '../support/app';
import { eventually } from '../support/eventually';

/** The event codec on the real broker and schema registry. */
describe('event codec', () => {
  const cluster = clusterFromEnv();
  const registry = new SchemaRegistry({ host: cluster.schemaRegistryUrl });
  const kafka = new Kafka({ clientId: 'codec-test', brokers: cluster.kafkaBrokers, logLevel: 0 });
  const schemas = loadSchemaFiles(defaultSchemaDir());
  let codec: AvroCodec;
  let events: EventCodec;

  beforeAll(async () => {
    codec = await AvroCodec.create({ registry, schemas, logger: silentLogger() });
    events = new EventCodec(codec);
  });

  it('keeps every subject BACKWARD compatible, refusing a version that cannot read older records', async () => {
    const base = cluster.schemaRegistryUrl.replace(/\/$/, '');
    for (const s of schemas) {
      const res = await fetch(`${base}/config/${encodeURIComponent(s.fullName)}`);
      expect({ subject: s.fullName, body: await res.json() }).toEqual({
        subject: s.fullName,
        body: { compatibilityLevel: 'BACKWARD' },
      });
    }
    // A new required field without a default: records written before it cannot be read.
    const track = schemas.find((s) => s.fullName === eventRecordName('track'))!;
    const parsed = JSON.parse(track.text) as { fields: unknown[] };
    const incompatible = { ...parsed, fields: [...parsed.fields, { name: 'mandatoryNew', type: 'string' }] };
    await expect(
      registry.register(
        { type: SchemaType.AVRO, schema: JSON.stringify(incompatible) },
        { subject: track.fullName },
      ),
    ).rejects.toThrow(/incompatible/i);
  });

  it('registers idempotently: a second start gets the same schema ids', async () => {
    const again = await AvroCodec.create({ registry, schemas, logger: silentLogger() });
    for (const s of schemas) expect(again.schemaId(s.fullName)).toBe(codec.schemaId(s.fullName));
  });

  it('produces one event of every type to Kafka and consumes each back deep-equal', async () => {
    const prefix = uniquePrefix();
    const admin = kafka.admin();
    await admin.connect();
    await ensureTopics({
      admin,
      prefix,
      defaultPartitions: 3,
      replicationFactor: 1,
      retryScheduleMs: DEFAULT_RETRY_SCHEDULE_MS,
      logger: silentLogger(),
    });
    await admin.disconnect();
    const topic = `${prefix}.events`;
    const sent = sampleEvents(`src_${prefix}`);

    // Idempotent, as Hookline's producers: a retried send must not duplicate records.
    const producer = kafka.producer(producerSettings());
    await producer.connect();
    await producer.send({
      topic,
      acks: -1,
      messages: sent.map((e) => ({ key: e.messageId, value: events.encode(e) })),
    });
    await producer.disconnect();

    const received: unknown[] = [];
    const consumer = kafka.consumer({ groupId: `${prefix}-reader`, maxWaitTimeInMs: 100 });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => void received.push(await events.decode(message.value!)),
    });
    try {
      await eventually(() => received.length >= sent.length || undefined, { what: 'every event back' });
    } finally {
      await consumer.disconnect();
    }
    const byId = (list: unknown[]) =>
      [...list].sort((a, b) =>
        (a as { messageId: string }).messageId < (b as { messageId: string }).messageId ? -1 : 1,
      );
    expect(byId(received)).toEqual(byId(sent)); // also: no duplicates
  });

  /** Registers a variant of the Track schema under the same subject and encodes with it. */
  async function writeWithVariant(
    mutate: (schema: avro.schema.RecordType) => void,
    value: Record<string, unknown>,
  ) {
    const track = schemas.find((s) => s.fullName === eventRecordName('track')) as SchemaFile;
    const variant = JSON.parse(track.text) as avro.schema.RecordType;
    mutate(variant);
    const { id } = await registry.register(
      { type: SchemaType.AVRO, schema: JSON.stringify(variant) },
      { subject: track.fullName },
    );
    return frame(id, avro.Type.forSchema(variant).toBuffer(value));
  }

  const base = {
    messageId: 'm-evolution',
    type: 'track',
    userId: 'u1',
    anonymousId: null,
    timestamp: Date.parse('2024-05-01T00:00:00.000Z'),
    originalTimestamp: null,
    sentAt: null,
    receivedAt: Date.parse('2024-05-01T00:00:01.000Z'),
    sourceId: 'src_1',
    context: null,
    integrations: null,
    event: 'Evolved',
  };

  it("decodes a record written with an older schema (a field missing) into today's shape", async () => {
    // The older writer knew no `properties`.
    const bytes = await writeWithVariant((s) => {
      s.fields = s.fields.filter((f) => f.name !== 'properties');
    }, base);
    expect(await events.decode(bytes)).toEqual({
      type: 'track',
      messageId: 'm-evolution',
      userId: 'u1',
      event: 'Evolved',
      timestamp: '2024-05-01T00:00:00.000Z',
      receivedAt: '2024-05-01T00:00:01.000Z',
      sourceId: 'src_1',
    });
  });

  it("decodes a record written with a newer schema (an extra field) into today's shape", async () => {
    const bytes = await writeWithVariant(
      (s) => {
        s.fields.push({
          name: 'channel',
          type: 'string',
          default: 'server',
        } as avro.schema.RecordType['fields'][number]);
      },
      { ...base, properties: '{"n":1.0}', channel: 'mobile' },
    );
    const decoded = (await events.decode(bytes)) as unknown as Record<string, unknown>;
    expect(decoded).not.toHaveProperty('channel');
    expect(decoded.event).toBe('Evolved');
    expect(decoded.properties).toEqual({ n: expect.anything() });
  });

  it.each([
    ['corrupt bytes', () => Buffer.from([0, ...Buffer.alloc(4), 0xff, 0xff, 0xff])],
    ['a truncated record', () => events.encode(sampleEvents()[1]!).subarray(0, 12)],
    ['an unknown magic byte', () => Buffer.from([7, 0, 0, 0, 1, 2])],
    ['an empty value', () => Buffer.alloc(0)],
    ['an unknown schema id', () => frame(987_654_321, Buffer.from([2, 0x61]))],
  ])('refuses %s with a non-retriable UndecodableRecordError', async (_name, bytes) => {
    const input = bytes();
    // The corrupt case needs a real schema id so that the body is what fails.
    if (input.length === 8) input.writeInt32BE(codec.schemaId(eventRecordName('track')), 1);
    const error = await events.decode(input).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(UndecodableRecordError);
    expect((error as UndecodableRecordError).retriable).toBe(false);
  });
});
