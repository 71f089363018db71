import { mountAdminApi } from '../../../src/admin-api';
import { catalogHttpError } from '../../../src/catalog';
import { catalogRoutes } from '../../../src/catalog/api/routes';
import { DELETION_ROUTE_SPEC } from '../../../src/deletions/spec';
import { OPERATIONS_ROUTE_SPECS } from '../../../src/operations/specs';
import { SecretKeyring } from '../../../src/security/secrets';
import { CatalogService } from '../../../src/catalog/service';
import { CatalogStore } from '../../../src/catalog/store';
import { Router } from '../../../src/http/router';
import { silentLogger } from '../../../src/observability/logger';

type Json = Record<string, unknown>;

/** The value at `path` (dot-free keys) inside a parsed JSON document. */
function at(value: unknown, ...path: string[]): Json {
  let current = value;
  for (const key of path) current = (current as Json | undefined)?.[key];
  return current as Json;
}

function openApiDocument(): Json {
  const router = new Router();
  const store = new CatalogStore({ logger: silentLogger() });
  const writer = { put: async () => undefined, remove: async () => undefined };
  const sealer = new SecretKeyring({ current: Buffer.alloc(32) });
  const service = new CatalogService({ store, writer, sealer, logger: silentLogger() });
  // The routes of the other stages, as the composition root mounts them (handlers unused here).
  const others = [...OPERATIONS_ROUTE_SPECS, DELETION_ROUTE_SPEC].map((r) => ({
    ...r,
    handler: async () => {},
  }));
  const groups = [
    { routes: catalogRoutes({ service, store }), mapError: catalogHttpError },
    { routes: others, mapError: (err: unknown) => err },
  ];
  mountAdminApi({ router, adminToken: 't', groups, logger: silentLogger() });
  let body: unknown;
  const match = router.match('GET', '/api/v1/openapi.json');
  if (!match || match === 'methodNotAllowed') throw new Error('no openapi route');
  const res = { writeHead: () => undefined, end: (text: string) => (body = JSON.parse(text)) };
  void match.handler({ req: {} as never, res: res as never, url: new URL('http://x'), params: {} });
  return body as Json;
}

describe('admin OpenAPI document', () => {
  const doc = openApiDocument();

  it('describes every admin route', () => {
    const operations = Object.entries(at(doc, 'paths')).flatMap(([path, ops]) =>
      Object.keys(ops as Json).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(
      [
        'POST /api/v1/sources',
        'GET /api/v1/sources',
        'GET /api/v1/sources/{id}',
        'PATCH /api/v1/sources/{id}',
        'DELETE /api/v1/sources/{id}',
        'POST /api/v1/destinations',
        'GET /api/v1/destinations',
        'GET /api/v1/destinations/{id}',
        'PATCH /api/v1/destinations/{id}',
        'DELETE /api/v1/destinations/{id}',
        'POST /api/v1/secrets/reencrypt',
        'GET /api/v1/dead-letters',
        'GET /api/v1/dead-letters/{taskId}',
        'POST /api/v1/dead-letters/redrive',
        'GET /api/v1/destinations/{id}/attempts',
        'POST /api/v1/destinations/{id}/replay',
        'GET /api/v1/replays/{id}',
        'POST /api/v1/deletion-requests',
      ].sort(),
    );
    expect(doc.openapi).toBe('3.1.0');
  });

  it('takes request bodies from the validation schemas', () => {
    const create = at(doc, 'paths', '/api/v1/destinations', 'post');
    expect(at(create, 'requestBody', 'content', 'application/json', 'schema')).toEqual({
      $ref: '#/components/schemas/DestinationCreate',
    });
    const settings = at(
      doc,
      'components',
      'schemas',
      'DestinationCreate',
      'properties',
      'settings',
      'properties',
    );
    expect(settings.webhooks).toMatchObject({ minItems: 1, maxItems: 5 });
    expect(at(settings, 'sharedSecret', 'anyOf', '0', 'writeOnly')).toBe(true);
  });

  it('documents responses without secrets, and the error statuses', () => {
    const schemas = at(doc, 'components', 'schemas');
    expect(Object.keys(at(schemas, 'Destination', 'properties', 'settings', 'properties')).sort()).toEqual([
      'maxRequestsPerSecond',
      'sharedSecretSet',
      'standardWebhooksRotatedAt',
      'standardWebhooksSecretSet',
      'webhooks',
    ]);
    expect(at(schemas, 'Source', 'properties', 'writeKey')).toBeUndefined();
    expect(at(schemas, 'SourceCreated', 'properties', 'writeKey')).toBeDefined();
    const deleteSource = at(doc, 'paths', '/api/v1/sources/{id}', 'delete', 'responses');
    expect(Object.keys(deleteSource).sort()).toEqual(['204', '400', '401', '404', '409', '412', '503']);
    expect(JSON.stringify(doc)).not.toContain('$defs');
  });

  it('documents conditional writes: If-Match in, ETag out, 412 on a stale version', () => {
    const destination = at(doc, 'paths', '/api/v1/destinations/{id}');
    const patch = at(destination, 'patch');
    const params = patch.parameters as unknown as { name: string; in: string }[];
    expect(params).toContainEqual(expect.objectContaining({ name: 'If-Match', in: 'header' }));
    expect(at(patch, 'responses', '412')).toBeDefined();
    expect(at(patch, 'responses', '200', 'headers', 'ETag')).toBeDefined();
    expect(at(destination, 'get', 'responses', '200', 'headers', 'ETag')).toBeDefined();
    expect(at(doc, 'components', 'schemas', 'Source', 'properties', 'version')).toBeDefined();
  });
});
