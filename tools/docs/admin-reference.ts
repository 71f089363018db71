import { githubSlug } from './markdown';

/** The parts of an OpenAPI 3.1 document the reference reads. */
type Json = Record<string, unknown>;
type Schema = Json & {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  additionalProperties?: Schema | boolean;
  enum?: unknown[];
  description?: string;
};
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Schema;
}
interface Operation {
  operationId: string;
  summary: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<
    string,
    {
      description: string;
      content?: Record<string, { schema: Schema }>;
      headers?: Record<string, { description: string }>;
    }
  >;
}

/** OpenAPI text as Markdown prose: `<version>` would otherwise vanish as an HTML tag. */
const prose = (text: string) => text.replace(/</g, '\\<');
const cell = (text: string) =>
  prose(text)
    .replace(/\|/g, '\\|')
    .replace(/\s*\n\s*/g, ' ');
const code = (value: unknown) => `\`${typeof value === 'string' ? value : JSON.stringify(value)}\``;
const refName = (ref: string) => ref.slice(ref.lastIndexOf('/') + 1);
const refLink = (ref: string) => `[${refName(ref)}](#${githubSlug(refName(ref))})`;

/** Limits of a schema, in words: `1–200 chars`, `1 to 1000`, `at most 5 items`, `default 100`. */
function limits(s: Json): string[] {
  const range = (min: unknown, max: unknown, unit: string) =>
    min !== undefined && max !== undefined
      ? `${min} to ${max}${unit}`
      : min !== undefined
        ? `at least ${min}${unit}`
        : max !== undefined
          ? `at most ${max}${unit}`
          : undefined;
  return [
    range(s.minimum ?? s.exclusiveMinimum, s.maximum ?? s.exclusiveMaximum, ''),
    s.exclusiveMinimum !== undefined ? `above ${s.exclusiveMinimum}` : undefined,
    s.minLength === 1 && s.maxLength === undefined ? 'non-empty' : range(s.minLength, s.maxLength, ' chars'),
    range(s.minItems, s.maxItems, ' items'),
    s.format !== undefined ? `${s.format}` : undefined,
    s.pattern !== undefined ? `matching ${code(s.pattern)}` : undefined,
    s.default !== undefined ? `default ${code(s.default)}` : undefined,
  ].filter(
    (x, i) => x !== undefined && !(i === 0 && s.exclusiveMinimum !== undefined && s.minimum === undefined),
  ) as string[];
}

/** A schema's type in words, with links to named schemas: `array of [Attempt](#attempt)`. */
export function typeText(s: Schema): string {
  if (s.$ref) return refLink(s.$ref);
  const alternatives = s.anyOf ?? s.oneOf;
  if (alternatives) {
    const texts = alternatives.map(typeText);
    return [...new Set(texts)].join(' or ');
  }
  if (s.allOf) return s.allOf.map(typeText).join(' and ');
  const extra = limits(s);
  const withExtra = (base: string) => (extra.length ? `${base} (${extra.join(', ')})` : base);
  if (s.const !== undefined) return code(s.const);
  if (s.enum) return withExtra(`one of ${s.enum.map(code).join(', ')}`);
  const type = Array.isArray(s.type) ? s.type.join(' or ') : s.type;
  if (type === 'array') return withExtra(`array of ${s.items ? typeText(s.items) : 'anything'}`);
  if (type === 'object' && !s.properties && typeof s.additionalProperties === 'object')
    return withExtra(`map of ${typeText(s.additionalProperties)}`);
  return withExtra(type ?? 'any');
}

interface FieldRow {
  path: string;
  type: string;
  required: boolean;
  description: string;
}

/**
 * The fields of an object schema, nested objects flattened (`settings.webhooks[].url`); a named
 * schema is linked, not expanded.
 */
export function fieldRows(s: Schema, prefix = ''): FieldRow[] {
  const alternatives = s.anyOf ?? s.oneOf;
  if (alternatives) return alternatives.flatMap((a) => fieldRows(a, prefix));
  if (s.type === 'array' && s.items && !s.items.$ref) return fieldRows(s.items, `${prefix}[]`);
  if (!s.properties) return [];
  return Object.entries(s.properties).flatMap(([name, property]) => {
    const path = prefix ? `${prefix}.${name}` : name;
    const described =
      property.description ??
      (property.anyOf ?? property.oneOf ?? []).find((a) => a.description)?.description;
    const writeOnly = property.writeOnly === true || (property.anyOf ?? []).some((a) => a.writeOnly === true);
    const description = [
      described,
      writeOnly && !described?.includes('Write-only') ? 'Write-only.' : undefined,
    ]
      .filter(Boolean)
      .join(' ');
    const row = { path, type: typeText(property), required: (s.required ?? []).includes(name), description };
    return property.$ref ? [row] : [row, ...fieldRows(property, path)];
  });
}

function fieldTable(s: Schema): string[] {
  const rows = fieldRows(s);
  if (rows.length === 0) return [`Type: ${typeText(s)}.`, ''];
  return [
    '| Field | Type | Required | Description |',
    '| --- | --- | --- | --- |',
    ...rows.map(
      (r) => `| \`${r.path}\` | ${cell(r.type)} | ${r.required ? 'yes' : 'no'} | ${cell(r.description)} |`,
    ),
    '',
  ];
}

const jsonSchema = (content?: Record<string, { schema: Schema }>) => content?.['application/json']?.schema;

function operationLines(method: string, path: string, op: Operation): string[] {
  const out = [`### ${method.toUpperCase()} ${path}`, '', prose(op.summary), ''];
  if (op.parameters?.length) {
    out.push('| Parameter | In | Type | Description |', '| --- | --- | --- | --- |');
    for (const p of op.parameters)
      out.push(
        `| \`${p.name}\` | ${p.in}${p.required ? ', required' : ''} | ${cell(p.schema ? typeText(p.schema) : '')} | ${cell(p.description ?? '')} |`,
      );
    out.push('');
  }
  const body = jsonSchema(op.requestBody?.content);
  if (body) out.push(`Request body (JSON): ${body.$ref ? refLink(body.$ref) : typeText(body)}.`, '');
  out.push('| Status | Meaning | Body |', '| --- | --- | --- |');
  for (const [status, r] of Object.entries(op.responses)) {
    const headers = Object.entries(r.headers ?? {}).map(
      ([name, h]) => ` Header \`${name}\`: ${h.description}`,
    );
    const answer = jsonSchema(r.content);
    out.push(
      `| ${status} | ${cell(r.description + headers.join(''))} | ${answer ? cell(typeText(answer)) : '—'} |`,
    );
  }
  out.push('');
  return out;
}

/** The group an operation belongs to: its path's first segment after the base, in words. */
function groupOf(path: string): string {
  const segment = path.split('/').filter(Boolean)[2] ?? path;
  const words = segment.replace(/-/g, ' ');
  return words[0]!.toUpperCase() + words.slice(1);
}

/** docs/reference/admin-api.md, before formatting, from the admin API's OpenAPI document. */
export function renderAdminApiReference(doc: Json): string {
  const info = doc.info as { title: string; description: string };
  const paths = doc.paths as Record<string, Record<string, Operation>>;
  const schemas = (doc.components as { schemas: Record<string, Schema> }).schemas;
  const operations = Object.entries(paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ path, method, op, group: groupOf(path) })),
  );
  const groups = [...new Set(operations.map((o) => o.group))];
  const out: string[] = [
    '# Admin API reference',
    '',
    '<!-- Generated by `npm run docs:gen` from the OpenAPI document (src/http/openapi.ts and the route specs): edit those, not this file. -->',
    '',
    prose(info.description),
    '',
    'Every route needs the admin token: `Authorization: Bearer <HOOKLINE_ADMIN_TOKEN>`. A running ' +
      'Hookline serves this document as OpenAPI 3.1 at `GET /api/v1/openapi.json` (no token needed). ' +
      `Every 4xx and 5xx answer has an ${refLink('#/components/schemas/Error')} body.`,
    '',
    '| Method | Path | Summary |',
    '| --- | --- | --- |',
    ...operations.map(
      ({ path, method, op }) =>
        `| ${method.toUpperCase()} | [\`${path}\`](#${githubSlug(`${method.toUpperCase()} ${path}`)}) | ${cell(firstSentence(op.summary))} |`,
    ),
    '',
  ];
  for (const group of groups) {
    out.push(`## ${group}`, '');
    for (const o of operations.filter((x) => x.group === group))
      out.push(...operationLines(o.method, o.path, o.op));
  }
  out.push('## Schemas', '');
  for (const [name, schema] of Object.entries(schemas)) {
    out.push(`### ${name}`, '');
    if (schema.description) out.push(prose(schema.description), '');
    out.push(...fieldTable(schema));
  }
  return out.join('\n');
}

function firstSentence(text: string): string {
  const match = /^(.*?[.:])(\s|$)/.exec(text);
  return match ? match[1]!.replace(/:$/, '.') : text;
}
