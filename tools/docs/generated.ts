import path from 'node:path';
import * as prettier from 'prettier';
import { adminOpenApiDocument } from './admin-routes';
import { renderAdminApiReference } from './admin-reference';
import { configSections, renderConfigurationReference } from './config-reference';

/** The repository's root. */
export const ROOT = path.resolve(__dirname, '../..');

export interface GeneratedDoc {
  /** Repository-relative path. */
  file: string;
  text: string;
}

/** The generated references, formatted as `npm run lint` (prettier) wants them. */
export async function generatedDocs(): Promise<GeneratedDoc[]> {
  const docs = [
    { file: 'docs/reference/configuration.md', text: renderConfigurationReference(configSections()) },
    { file: 'docs/reference/admin-api.md', text: renderAdminApiReference(adminOpenApiDocument()) },
  ];
  return Promise.all(
    docs.map(async ({ file, text }) => {
      const filepath = path.join(ROOT, file);
      const options = (await prettier.resolveConfig(filepath)) ?? {};
      return { file, text: await prettier.format(text, { ...options, filepath }) };
    }),
  );
}
