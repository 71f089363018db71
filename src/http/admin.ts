import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { errorMessage } from '../core/errors';
import type { Logger } from '../observability/logger';
import type { OperationSpec } from './openapi';
import { HttpError } from './respond';
import type { Handler } from './router';

/** Every admin route lives under this path. */
export const ADMIN_BASE_PATH = '/api/v1';

/** One admin operation: its route, its OpenAPI description, and its handler. */
export interface AdminRoute {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  spec: OperationSpec;
  handler: Handler;
}

/** Checks a request's admin credentials; throws a 401 HttpError when they are missing or wrong. */
export type AdminAuthenticator = (req: IncomingMessage) => void;

/**
 * `Authorization: Bearer <token>` against the configured admin token. Both sides are hashed
 * before a constant-time comparison, so neither the token's content nor its length leaks through
 * timing. Without a configured token the admin API refuses everything.
 */
export function adminAuthenticator(adminToken: string | undefined): AdminAuthenticator {
  const expected = adminToken ? digest(adminToken) : undefined;
  return (req) => {
    if (!expected) throw unauthorized('the admin API is disabled: HOOKLINE_ADMIN_TOKEN is not set');
    const presented = bearerToken(req.headers.authorization);
    if (presented === undefined) throw unauthorized('missing "Authorization: Bearer <admin token>" header');
    if (!timingSafeEqual(digest(presented), expected)) throw unauthorized('invalid admin token');
  };
}

export function bearerToken(header: string | undefined): string | undefined {
  const match = header ? /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header) : null;
  return match?.[1];
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

function unauthorized(message: string): HttpError {
  return new HttpError(401, 'unauthorized', message, {});
}

/**
 * Wraps an admin handler: the bearer token first (401 with WWW-Authenticate), then the handler,
 * whose errors `mapError` turns into HTTP answers; 5xx answers are logged without secrets.
 */
export function adminHandler(options: {
  authenticate: AdminAuthenticator;
  handler: Handler;
  mapError: (err: unknown) => unknown;
  logger: Logger;
}): Handler {
  const { authenticate, handler, mapError, logger } = options;
  return async (ctx) => {
    try {
      authenticate(ctx.req);
    } catch (err) {
      ctx.res.setHeader('www-authenticate', 'Bearer realm="hookline-admin"');
      throw err;
    }
    try {
      await handler(ctx);
    } catch (err) {
      const mapped = mapError(err);
      if (mapped instanceof HttpError && mapped.status >= 500) {
        logger.warn(
          { code: mapped.code, path: ctx.url.pathname, reason: errorMessage(err) },
          'admin request failed',
        );
      }
      throw mapped;
    }
  };
}
