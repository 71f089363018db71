import * as avro from 'avsc';
import type { AvroCodec } from '../../../src/avro/codec';
import { defaultSchemaDir, loadSchemaFiles } from '../../../src/avro/schema-files';
import {
  DELIVERY_TASK_RECORD,
  decodeTask,
  encodeTask,
  type DeliveryTask,
} from '../../../src/records/delivery-task';
import { deliveryTask } from '../../support/tasks';

const today = loadSchemaFiles(defaultSchemaDir()).find((f) => f.fullName === DELIVERY_TASK_RECORD)!;

/** The schema before `reissuedAt` (what processes of the previous version write and read). */
const before = (() => {
  const schema = JSON.parse(today.text) as { fields: { name: string }[] };
  schema.fields = schema.fields.filter((f) => f.name !== 'reissuedAt');
  return avro.Type.forSchema(schema as avro.Schema);
})();

/** A codec without a registry: writes with `writer`, reads into today's schema, as AvroCodec does. */
function codec(writer: avro.Type): AvroCodec {
  return {
    encode: (_: string, value: Record<string, unknown>) => writer.toBuffer(value),
    decode: async (bytes: Buffer) => ({
      name: DELIVERY_TASK_RECORD,
      value: today.type.fromBuffer(bytes, today.type.createResolver(writer)) as Record<string, unknown>,
      writerSchemaId: 1,
    }),
  } as unknown as AvroCodec;
}

const task: DeliveryTask = deliveryTask({
  receivedAtMs: 1_700_000_000_000,
  history: [{ atMs: 1_700_000_001_000, durationMs: 12, urlIndex: 0, status: 503, result: 'http_5xx' }],
  reissuedAtMs: 1_700_000_900_000,
});

describe('DeliveryTask ↔ Avro record', () => {
  it('round-trips a redriven or replayed task with its reissuedAt', async () => {
    const c = codec(today.type);
    await expect(decodeTask(c, encodeTask(c, task))).resolves.toStrictEqual(task);
  });

  it('reads a task written before reissuedAt (BACKWARD compatible): none', async () => {
    const old: DeliveryTask = { ...task };
    delete old.reissuedAtMs;
    const bytes = before.toBuffer(recordOf(old));
    await expect(decodeTask(codec(before), bytes)).resolves.toStrictEqual(old);
  });

  it('a previous version reads a task with reissuedAt (rolling upgrade): the field is dropped', () => {
    const bytes = today.type.toBuffer(recordOf(task));
    const read = before.fromBuffer(bytes, before.createResolver(today.type)) as Record<string, unknown>;
    expect(read).toMatchObject({ taskId: task.taskId, receivedAt: task.receivedAtMs });
    expect(read).not.toHaveProperty('reissuedAt');
  });

  it('declares reissuedAt optional, with a null default', () => {
    const fields = (JSON.parse(today.text) as { fields: { name: string; default?: unknown }[] }).fields;
    expect(fields.find((f) => f.name === 'reissuedAt')).toMatchObject({ default: null });
  });
});

/** The Avro record encodeTask writes for a task (a writer ignores the fields its schema lacks). */
function recordOf(t: DeliveryTask): Record<string, unknown> {
  let record: Record<string, unknown> = {};
  encodeTask(
    {
      encode: (_: string, value: Record<string, unknown>) => {
        record = value;
        return Buffer.alloc(0);
      },
    } as unknown as AvroCodec,
    t,
  );
  return record;
}
