import { readFileSync } from 'node:fs';
import path from 'node:path';
import { envSchema } from '../../src/config/schema';
import { envMentions, isKnown } from './env-names';
import type { Problem } from './problems';
import { TOOL_ENV } from './tool-env';

export const CONFIGURATION_REFERENCE = 'docs/reference/configuration.md';

/** The variables a reference documents: its `### \`NAME\`` headings and its table rows' first cells. */
export function documentedNames(markdown: string): Set<string> {
  const names = new Set<string>();
  for (const line of markdown.split('\n')) {
    const heading = /^#{2,4}\s+`([A-Z][A-Z0-9_]+)`\s*$/.exec(line);
    const row = /^\|\s*\[?`([A-Z][A-Z0-9_]+)`/.exec(line);
    const name = heading?.[1] ?? row?.[1];
    if (name) names.add(name);
  }
  return names;
}

/**
 * Environment variables: every key of the configuration schema is documented in the configuration
 * reference and it documents no other (but the tools' own, tools/docs/tool-env.ts); every
 * HOOKLINE_/KAFKA_/SCHEMA_REGISTRY_ name the docs mention is one of those; and every tool
 * variable is still read where the table says.
 */
export function checkEnv(root: string, files: readonly string[]): Problem[] {
  const schemaNames = new Set(Object.keys(envSchema.shape));
  const known = new Set([...schemaNames, ...TOOL_ENV.map((v) => v.name)]);
  const problems: Problem[] = [];

  const referencePath = path.join(root, CONFIGURATION_REFERENCE);
  let documented: Set<string> | undefined;
  try {
    documented = documentedNames(readFileSync(referencePath, 'utf8'));
  } catch {
    problems.push({ file: CONFIGURATION_REFERENCE, message: 'missing: run npm run docs:gen' });
  }
  for (const name of documented ? known : [])
    if (!documented!.has(name))
      problems.push({
        file: CONFIGURATION_REFERENCE,
        message: `${name} is not documented (run npm run docs:gen)`,
      });
  for (const name of documented ?? [])
    if (!known.has(name))
      problems.push({
        file: CONFIGURATION_REFERENCE,
        message: `${name} is documented but neither the config schema nor tools/docs/tool-env.ts knows it`,
      });

  for (const file of files) {
    for (const mention of envMentions(readFileSync(path.join(root, file), 'utf8'))) {
      if (isKnown(mention, known)) continue;
      const what = mention.wildcard
        ? `${mention.name}*: no variable starts with it`
        : `${mention.name} is unknown`;
      problems.push({
        file,
        line: mention.line,
        message: `${what} (not in src/config/schema.ts nor tools/docs/tool-env.ts)`,
      });
    }
  }

  for (const v of TOOL_ENV) {
    let source = '';
    try {
      source = readFileSync(path.join(root, v.readBy), 'utf8');
    } catch {
      // reported below
    }
    if (!source.includes(v.name))
      problems.push({
        file: 'tools/docs/tool-env.ts',
        message: `${v.name}: ${v.readBy} does not read it (any more)`,
      });
  }
  return problems;
}
