import { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import type { Logger } from '../observability/logger';
import { AvroCodec } from './codec';
import { defaultSchemaDir, loadSchemaFiles } from './schema-files';

/** Connects to the schema registry (basic auth when both are given) and registers `schemas/*.avsc`. */
export function connectAvro(options: {
  url: string;
  username?: string;
  password?: string;
  logger: Logger;
}): Promise<AvroCodec> {
  const { url, username, password, logger } = options;
  const registry = new SchemaRegistry({
    host: url,
    auth: username && password ? { username, password } : undefined,
  });
  return AvroCodec.create({ registry, schemas: loadSchemaFiles(defaultSchemaDir()), logger });
}
