import { ADMIN_BASE_PATH, adminAuthenticator, adminHandler, type AdminRoute } from './http/admin';
import { buildOpenApiDocument } from './http/openapi';
import { sendJson } from './http/respond';
import type { Router } from './http/router';
import type { Logger } from './observability/logger';

/** One stage's admin routes, and how that stage's errors become HTTP answers. */
export interface AdminRouteGroup {
  routes: AdminRoute[];
  mapError: (err: unknown) => unknown;
}

/**
 * Mounts the whole admin API in one place: every stage's routes behind the admin bearer token,
 * and the OpenAPI document of all of them at `/api/v1/openapi.json` (public).
 */
export function mountAdminApi(options: {
  router: Router;
  adminToken: string | undefined;
  groups: AdminRouteGroup[];
  logger: Logger;
}): void {
  const { router, logger } = options;
  const authenticate = adminAuthenticator(options.adminToken);
  for (const { routes, mapError } of options.groups) {
    for (const route of routes) {
      router.add(
        route.method,
        route.path,
        adminHandler({ authenticate, handler: route.handler, mapError, logger }),
      );
    }
  }
  const document = adminApiDocument(options.groups.flatMap((g) => g.routes));
  router.add('GET', `${ADMIN_BASE_PATH}/openapi.json`, ({ res }) => sendJson(res, 200, document));
}

/** The OpenAPI 3.1 document of the admin API. */
export function adminApiDocument(routes: Pick<AdminRoute, 'method' | 'path' | 'spec'>[]) {
  return buildOpenApiDocument(routes);
}
