import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as avro from 'avsc';

/** Where the `.avsc` files live, both from sources (tsx, jest) and from the build (`dist/src/...`). */
export function defaultSchemaDir(): string {
  for (const candidate of [
    path.resolve(__dirname, '../../schemas'),
    path.resolve(__dirname, '../../../schemas'),
  ]) {
    try {
      readdirSync(candidate);
      return candidate;
    } catch {
      // try the next candidate
    }
  }
  throw new Error(`schemas/ directory not found near ${__dirname}`);
}

export interface SchemaFile {
  /** Full record name, e.g. `io.hookline.events.Track`; also the registry subject. */
  fullName: string;
  /** Schema text as registered. */
  text: string;
  type: avro.Type;
}

/** Reads every `*.avsc` in the directory; each holds one named record schema. */
export function loadSchemaFiles(dir: string): SchemaFile[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.avsc'))
    .sort()
    .map((f) => {
      const text = readFileSync(path.join(dir, f), 'utf8');
      const type = avro.Type.forSchema(JSON.parse(text) as avro.Schema);
      if (!type.name) throw new Error(`${f}: top-level schema must be a named record`);
      return { fullName: type.name, text: JSON.stringify(JSON.parse(text)), type };
    });
}
