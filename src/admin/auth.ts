import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { HttpError } from '../http/respond';

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
