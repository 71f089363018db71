import fc from 'fast-check';

type Json = Record<string, unknown>;

/** One request generated from the OpenAPI document. */
export interface GeneratedRequest {
  method: string;
  path: string;
  body?: unknown;
}

/**
 * Requests for every operation of an OpenAPI 3.1 document: path parameters, query parameters and
 * bodies drawn from their JSON Schemas (so many are valid and reach the handlers' logic), mixed
 * with arbitrary JSON in place of each (so the validation is attacked too).
 */
export function requestsFrom(document: Json): fc.Arbitrary<GeneratedRequest> {
  const components = ((document.components as Json | undefined)?.schemas ?? {}) as Json;
  const operations: fc.Arbitrary<GeneratedRequest>[] = [];
  for (const [path, methods] of Object.entries(document.paths as Json)) {
    for (const [method, op] of Object.entries(methods as Json)) {
      const operation = op as Json;
      const parameters = (operation.parameters ?? []) as { name: string; in: string; schema?: Json }[];
      const pathParams = parameters.filter((p) => p.in === 'path');
      const queryParams = parameters.filter((p) => p.in === 'query');
      const bodySchema = (
        ((operation.requestBody as Json | undefined)?.content as Json | undefined)?.['application/json'] as
          Json | undefined
      )?.schema as Json | undefined;
      operations.push(
        fc
          .record({
            params: fc.tuple(
              ...pathParams.map(() => fc.oneof(fc.string({ maxLength: 30 }), fc.constant('src_0'))),
            ),
            query: fc.tuple(
              ...queryParams.map((q) =>
                fc.option(fc.oneof(valueOf(q.schema ?? {}, components, 2), fc.string())),
              ),
            ),
            body: bodySchema
              ? fc.oneof(valueOf(bodySchema, components, 5), fc.jsonValue({ maxDepth: 4 }))
              : fc.constant(undefined),
          })
          .map(({ params, query, body }) => {
            let url = path;
            pathParams.forEach((p, i) => (url = url.replace(`{${p.name}}`, encodeURIComponent(params[i]!))));
            const search = new URLSearchParams();
            queryParams.forEach((q, i) => {
              const v = query[i];
              if (v !== null && v !== undefined)
                search.set(q.name, typeof v === 'string' ? v : JSON.stringify(v));
            });
            const qs = search.toString();
            return { method: method.toUpperCase(), path: qs ? `${url}?${qs}` : url, body };
          }),
      );
    }
  }
  return fc.oneof(...operations);
}

/** Values for a JSON Schema (the subset zod emits): mostly valid, sometimes not. */
function valueOf(schema: Json, components: Json, depth: number): fc.Arbitrary<unknown> {
  if (typeof schema.$ref === 'string') {
    const target = components[schema.$ref.replace('#/components/schemas/', '')] as Json | undefined;
    return target && depth > 0 ? valueOf(target, components, depth - 1) : fc.jsonValue({ maxDepth: 2 });
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key] as Json[] | undefined;
    if (options?.length) return fc.oneof(...options.map((s) => valueOf(s, components, depth)));
  }
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if ('const' in schema) return fc.constant(schema.const);
  switch (schema.type) {
    case 'string':
      return fc.oneof(
        fc.string({ maxLength: 50 }),
        fc.constantFrom('https://example.com/hook', 'http://10.0.0.5/', 'whsec_AAAA', '2024-05-01T00:00:00Z'),
      );
    case 'integer':
      return fc.oneof(fc.integer(), fc.constantFrom(0, -1, 2 ** 53));
    case 'number':
      return fc.oneof(fc.double(), fc.integer());
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = (schema.items ?? {}) as Json;
      return fc.array(depth > 0 ? valueOf(items, components, depth - 1) : fc.constant(null), {
        maxLength: 6,
      });
    }
    case 'object': {
      const properties = (schema.properties ?? {}) as Json;
      const entries = Object.entries(properties).map(
        ([k, s]) => [k, depth > 0 ? valueOf(s as Json, components, depth - 1) : fc.constant(null)] as const,
      );
      return fc.record(Object.fromEntries(entries), { requiredKeys: [] });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}
