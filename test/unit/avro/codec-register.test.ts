import type { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { ConfluentSchemaRegistryCompatibilityError } from '@kafkajs/confluent-schema-registry/dist/errors';
import { AvroCodec } from '../../../src/avro/codec';
import { defaultSchemaDir, loadSchemaFiles } from '../../../src/avro/schema-files';
import { RegistryUnavailableError } from '../../../src/core/errors';
import { silentLogger } from '../../../src/observability/logger';

/**
 * Several processes starting at once on a fresh registry: the registry client sets a new
 * subject's compatibility level just after registering it, so a second process may see the subject
 * without it and be refused. Start-up must not fail for that moment.
 */
describe('AvroCodec registration', () => {
  const schemas = loadSchemaFiles(defaultSchemaDir()).slice(0, 1);
  const race = () =>
    new ConfluentSchemaRegistryCompatibilityError(
      'Compatibility does not match the configuration (BACKWARD != NONE)',
    );

  it('tries again when another process is still setting a new subject’s compatibility level', async () => {
    const register = jest.fn().mockRejectedValueOnce(race()).mockResolvedValue({ id: 42 });
    const codec = await AvroCodec.create({
      registry: { register } as unknown as SchemaRegistry,
      schemas,
      logger: silentLogger(),
    });
    expect(codec.schemaId(schemas[0]!.fullName)).toBe(42);
    expect(register).toHaveBeenCalledTimes(2);
  });

  it('tries again when both set the level of a new subject and the registry refuses the second (409)', async () => {
    const conflict = Object.assign(new Error("A rule named 'COMPATIBILITY' already exists."), {
      status: 409,
    });
    const register = jest.fn().mockRejectedValueOnce(conflict).mockResolvedValue({ id: 43 });
    const codec = await AvroCodec.create({
      registry: { register } as unknown as SchemaRegistry,
      schemas,
      logger: silentLogger(),
    });
    expect(codec.schemaId(schemas[0]!.fullName)).toBe(43);
  });

  it('a level that stays different (set so on purpose) still fails start-up, after a few tries', async () => {
    const register = jest.fn().mockRejectedValue(race());
    await expect(
      AvroCodec.create({
        registry: { register } as unknown as SchemaRegistry,
        schemas,
        logger: silentLogger(),
      }),
    ).rejects.toThrow(RegistryUnavailableError);
    expect(register).toHaveBeenCalledTimes(5);
  });

  it('other failures are not retried here', async () => {
    const register = jest.fn().mockRejectedValue(Object.assign(new Error('down'), { status: 503 }));
    await expect(
      AvroCodec.create({
        registry: { register } as unknown as SchemaRegistry,
        schemas,
        logger: silentLogger(),
      }),
    ).rejects.toThrow(/unavailable while registering/);
    expect(register).toHaveBeenCalledTimes(1);
  });
});
