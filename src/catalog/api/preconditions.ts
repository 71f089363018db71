import type { RouteContext } from '../../http/router';
import { HttpError } from '../../http/respond';
import type { WriteCondition } from '../operations';
import { etagOf, parseIfMatch } from '../versions';

/** OpenAPI: the request header of a conditional change, and what a read or change answers. */
export const IF_MATCH_HEADER = {
  name: 'If-Match',
  description:
    'The ETag of the entity as you read it ("<version>"): the change is made only if the entity is still at that version, ' +
    'else 412 precondition_failed with currentVersion. A list ("2", "3") matches if any of its ETags does; ' +
    'comparison is strong, so a weak ETag (W/"3") never matches; * matches any current version. ' +
    'Absent: the change applies to the current version.',
};
export const ETAG_HEADER = { ETag: 'The entity’s version, "<version>": send it back as If-Match.' };
export const PRECONDITION_FAILED = {
  412: {
    description:
      'If-Match names an older version, or another change won the race to it (error = precondition_failed, currentVersion).',
  },
};

/** The request's If-Match as a write condition; 400 when it is not `*` or a list of ETags of this API. */
export function writeCondition(ctx: RouteContext): WriteCondition {
  const raw = ctx.req.headers['if-match'];
  try {
    const ifMatch = parseIfMatch(Array.isArray(raw) ? raw.join(',') : raw);
    return ifMatch === undefined ? {} : { ifMatch };
  } catch (err) {
    throw new HttpError(400, 'validation_failed', (err as Error).message, {
      issues: [{ path: 'If-Match', code: 'invalid_string', message: (err as Error).message }],
    });
  }
}

/** The ETag header of an entity read or written. */
export function etag(entity: { version?: number }): Record<string, string> {
  return { etag: etagOf(entity.version ?? 0) };
}
