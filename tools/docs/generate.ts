/**
 * `npm run docs:gen`: writes the references generated from their sources —
 * docs/reference/configuration.md (the configuration schema) and docs/reference/admin-api.md (the
 * admin API's OpenAPI document). `npm run docs:check` fails when they are out of date.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ROOT, generatedDocs } from './generated';

async function main(): Promise<void> {
  for (const doc of await generatedDocs()) {
    const target = path.join(ROOT, doc.file);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, doc.text);
    process.stdout.write(`wrote ${doc.file}\n`);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`docs:gen: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
