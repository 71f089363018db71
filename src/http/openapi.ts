import { z } from 'zod';

/** The OpenAPI description of one admin operation, next to its route. */
export interface OperationSpec {
  operationId: string;
  summary: string;
  /** Request body schema (JSON); its input side is documented. */
  body?: z.ZodType;
  query?: { name: string; description: string; schema: Record<string, unknown> }[];
  /** Request headers the operation reads (such as If-Match), all optional. */
  headers?: { name: string; description: string }[];
  /**
   * Success answers and operation-specific errors, with the headers they carry (name → description);
   * 400/401/404/503 are added from the route's shape.
   */
  responses: Record<number, { description: string; schema?: z.ZodType; headers?: Record<string, string> }>;
}

type JsonObject = Record<string, unknown>;

/** The body of every 4xx/5xx answer of the admin API. */
export const errorSchema = z
  .object({
    error: z.string().meta({ description: 'Stable machine-readable code.' }),
    message: z.string(),
    issues: z
      .array(z.object({ path: z.string(), code: z.string(), message: z.string() }))
      .optional()
      .meta({ description: 'Validation problems (error = validation_failed).' }),
  })
  .meta({ id: 'Error' });

/**
 * An OpenAPI 3.1 document generated from the route table and the zod schemas that validate the
 * requests (io: input) and type the answers (io: output). Schemas with a zod `id` become
 * components, referenced by `$ref`.
 */
export function buildOpenApiDocument(
  routes: { method: string; path: string; spec: OperationSpec }[],
): JsonObject {
  const components: JsonObject = {};
  const ref = (schema: z.ZodType, io: 'input' | 'output') => schemaRef(schema, io, components);
  const errorRef = ref(errorSchema, 'output');
  const errorResponse = (description: string) => ({ description, content: jsonContent(errorRef) });

  const paths: Record<string, JsonObject> = {};
  for (const { method, path, spec } of routes) {
    const pathParams = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    const responses: JsonObject = {};
    for (const [status, response] of Object.entries(spec.responses)) {
      const answer: JsonObject = response.schema
        ? { description: response.description, content: jsonContent(ref(response.schema, 'output')) }
        : Number(status) >= 400
          ? errorResponse(response.description)
          : { description: response.description };
      if (response.headers)
        answer.headers = Object.fromEntries(
          Object.entries(response.headers).map(([name, description]) => [
            name,
            { description, schema: { type: 'string' } },
          ]),
        );
      responses[status] = answer;
    }
    if (spec.body || spec.query)
      responses['400'] ??= errorResponse('Invalid request (error = validation_failed or invalid_json).');
    responses['401'] ??= errorResponse('Missing or wrong admin token.');
    if (pathParams.length > 0) responses['404'] ??= errorResponse('No such entity.');
    responses['503'] ??= errorResponse(
      'Catalog still loading (catalog_not_ready) or Kafka unavailable (kafka_unavailable).',
    );

    const parameters = [
      ...pathParams.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
      ...(spec.query ?? []).map((q) => ({
        name: q.name,
        in: 'query',
        required: false,
        description: q.description,
        schema: q.schema,
      })),
      ...(spec.headers ?? []).map((h) => ({
        name: h.name,
        in: 'header',
        required: false,
        description: h.description,
        schema: { type: 'string' },
      })),
    ];
    paths[path] ??= {};
    paths[path]![method.toLowerCase()] = {
      operationId: spec.operationId,
      summary: spec.summary,
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(spec.body
        ? { requestBody: { required: true, content: jsonContent(ref(spec.body, 'input')) } }
        : {}),
      responses,
    };
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Hookline admin API',
      version: '1',
      description:
        'Sources and Webhooks destinations. Every change is a record on the compacted catalog topic; ' +
        'a write is answered once it is on Kafka and applied by the answering process. ' +
        'Sources and destinations carry a version, also their ETag; PATCH and DELETE take If-Match and ' +
        'answer 412 precondition_failed when the entity has changed since, on any replica. ' +
        'Also: dead letters (list, inspect, redrive), recent delivery attempts, replays of the events topic, ' +
        'and deletion requests.',
    },
    security: [{ adminToken: [] }],
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        adminToken: { type: 'http', scheme: 'bearer', description: 'HOOKLINE_ADMIN_TOKEN' },
      },
    },
  };
}

function jsonContent(schema: JsonObject): JsonObject {
  return { 'application/json': { schema } };
}

/**
 * The JSON Schema of `schema`, with every zod-`id` definition moved into `components` and the
 * `$ref`s pointing there. Returns a `$ref` (named schema) or the inline schema.
 */
function schemaRef(schema: z.ZodType, io: 'input' | 'output', components: JsonObject): JsonObject {
  const generated = z.toJSONSchema(schema, { io, target: 'draft-2020-12' }) as JsonObject;
  const rewritten = JSON.parse(
    JSON.stringify(generated).replaceAll('"#/$defs/', '"#/components/schemas/'),
  ) as JsonObject;
  Object.assign(components, rewritten.$defs ?? {});
  delete rewritten.$defs;
  delete rewritten.$schema;
  return rewritten;
}
