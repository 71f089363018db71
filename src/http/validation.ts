import type { z } from 'zod';

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
