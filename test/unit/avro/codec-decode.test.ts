import type { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { AvroCodec } from '../../../src/avro/codec';
import { defaultSchemaDir, loadSchemaFiles } from '../../../src/avro/schema-files';
import { frame } from '../../../src/avro/wire';
import { RegistryUnavailableError, UndecodableRecordError } from '../../../src/core/errors';
import { silentLogger } from '../../../src/observability/logger';

/**
 * A record written with a schema id this process has not seen: its schema is fetched from the
 * registry. Only a registry that does not know the id makes the record undecodable (dead-lettered,
 * or skipped by a catalog reader); a registry refusing access is unavailable, and waited for.
 */
describe('AvroCodec: fetching a writer schema', () => {
  const schemas = loadSchemaFiles(defaultSchemaDir()).slice(0, 1);
  const codecWith = (getSchema: jest.Mock) =>
    AvroCodec.create({
      registry: { register: jest.fn().mockResolvedValue({ id: 1 }), getSchema } as unknown as SchemaRegistry,
      schemas,
      logger: silentLogger(),
    });
  const refusal = (status: number) => Object.assign(new Error(`HTTP ${status}`), { status });
  const record = frame(77, Buffer.from([0]));

  it.each([401, 403, 400, 500, 503])(
    'a registry answering %i is unavailable (retriable), not the record',
    async (status) => {
      const codec = await codecWith(jest.fn().mockRejectedValue(refusal(status)));
      const decoding = codec.decode(record);
      await expect(decoding).rejects.toBeInstanceOf(RegistryUnavailableError);
      await expect(decoding).rejects.toMatchObject({ retriable: true });
      await expect(codec.recordName(record)).rejects.toBeInstanceOf(RegistryUnavailableError);
    },
  );

  it('an id the registry does not know (404) is undecodable', async () => {
    const codec = await codecWith(jest.fn().mockRejectedValue(refusal(404)));
    await expect(codec.decode(record)).rejects.toBeInstanceOf(UndecodableRecordError);
    await expect(codec.recordName(record)).rejects.toBeInstanceOf(UndecodableRecordError);
  });
});
