import type { IncomingMessage } from 'node:http';
import type { z } from 'zod';
import { HttpError, readBody } from './respond';

/** One problem with a request, as returned in a 400 answer. */
export interface ValidationIssue {
  /** Dotted path into the body, e.g. `settings.webhooks.0.url`; empty for the body itself. */
  path: string;
  /** Stable code: ours (`header_reserved`, ...) or zod's (`too_big`, `invalid_type`, ...). */
  code: string;
  message: string;
}

export function toValidationIssues(error: z.ZodError): ValidationIssue[] {
  return error.issues.map((issue) => {
    const custom =
      issue.code === 'custom' ? (issue.params as { code?: unknown } | undefined)?.code : undefined;
    return {
      path: issue.path.map(String).join('.'),
      code: typeof custom === 'string' ? custom : issue.code,
      message: issue.message,
    };
  });
}

/**
 * Decodes request bodies as UTF-8, refusing invalid bytes rather than replacing them with U+FFFD,
 * which would silently change what is stored (a shared secret, a header value). A BOM is kept, so
 * it stays invalid JSON as before.
 */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Reads a JSON request body and validates it: 400 `invalid_json` (also for a body that is not
 * valid UTF-8), or 400 `validation_failed`
 * naming the first issue's path (all issues in `issues`). `emptyBody`: what an empty body stands
 * for (by default it is invalid JSON); `subject`: what a path-less issue is about in the message.
 */
export async function parseJsonBody<S extends z.ZodType>(
  req: IncomingMessage,
  schema: S,
  maxBytes: number,
  options: { emptyBody?: unknown; subject?: string } = {},
): Promise<z.output<S>> {
  const bytes = await readBody(req, maxBytes);
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new HttpError(400, 'invalid_json', 'the request body is not valid UTF-8');
  }
  let json: unknown;
  try {
    json = options.emptyBody !== undefined && text.trim() === '' ? options.emptyBody : JSON.parse(text);
  } catch {
    throw new HttpError(400, 'invalid_json', 'the request body is not valid JSON');
  }
  return validated(schema, json, options.subject);
}

/** The value as the schema parses it, or 400 `validation_failed` naming the first issue (all in `issues`). */
export function validated<S extends z.ZodType>(schema: S, value: unknown, subject = 'body'): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = toValidationIssues(result.error);
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  throw new HttpError(
    400,
    'validation_failed',
    `${issues[0]!.path || subject}: ${issues[0]!.message}${more}`,
    {
      issues,
    },
  );
}
