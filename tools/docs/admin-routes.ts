import { adminApiDocument } from '../../src/admin-api';
import { audienceRoutes } from '../../src/audiences/routes';
import { catalogRoutes } from '../../src/catalog/api/routes';
import { DELETION_ROUTE_SPEC } from '../../src/deletions/spec';
import type { AdminRoute } from '../../src/http/admin';
import { OPERATIONS_ROUTE_SPECS } from '../../src/operations/specs';

/**
 * A stand-in for a dependency the route tables take but only their handlers use: reading the
 * tables for their OpenAPI specs never calls a handler, and any other use fails loudly.
 */
function handlersOnly<T>(name: string): T {
  return new Proxy({} as object, {
    get: (_target, key) => {
      throw new Error(`${name}.${String(key)} used while reading the admin routes' specs`);
    },
  }) as T;
}

/**
 * Every admin route, in the order the composition root (src/compose/index.ts) mounts them: the catalog,
 * operations, audiences, deletion requests. No Kafka is needed. An integration test
 * (test/integration/audiences-api.test.ts) checks that a running Hookline serves the same document.
 */
export function adminRouteSpecs(): Pick<AdminRoute, 'method' | 'path' | 'spec'>[] {
  return [
    ...catalogRoutes({ service: handlersOnly('catalog service'), store: handlersOnly('catalog store') }),
    ...OPERATIONS_ROUTE_SPECS,
    ...audienceRoutes({
      service: handlersOnly('audience service'),
      catalog: handlersOnly('audience catalog'),
      status: handlersOnly('audience status'),
      sync: handlersOnly('sync publisher'),
    }),
    DELETION_ROUTE_SPEC,
  ];
}

/** The OpenAPI document a running Hookline serves at /api/v1/openapi.json. */
export function adminOpenApiDocument(): Record<string, unknown> {
  return adminApiDocument(adminRouteSpecs());
}
