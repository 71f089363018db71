import { z } from 'zod';
import type { OperationSpec } from '../http/openapi';

export const DELETION_REQUESTS_PATH = '/api/v1/deletion-requests';

/**
 * A source listed twice would get two delete notifications with one messageId (`<request>:<source>`):
 * refused (400, issue code `duplicate_source` at the second listing), not silently merged.
 */
function noDuplicates(sourceIds: string[], ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  sourceIds.forEach((id, i) => {
    if (seen.has(id))
      ctx.addIssue({
        code: 'custom',
        message: `source ${id} is listed more than once`,
        path: [i],
        params: { code: 'duplicate_source' },
      });
    seen.add(id);
  });
}

export const deletionRequestSchema = z
  .strictObject({
    userId: z.string().min(1).max(1_024).meta({ description: 'The user whose data is to be deleted.' }),
    sourceIds: z
      .array(z.string().min(1))
      .min(1)
      .max(1_000)
      .superRefine(noDuplicates)
      .optional()
      .meta({ description: 'Affected sources, each listed once; every source when omitted.' }),
  })
  .meta({ id: 'DeletionRequest' });

const deletionAcceptedSchema = z
  .object({
    id: z.string(),
    userId: z.string(),
    notifications: z.array(z.object({ sourceId: z.string(), messageId: z.string() })),
  })
  .meta({ id: 'DeletionAccepted' });

/** The deletion-requests route, for the admin OpenAPI document. */
export const DELETION_ROUTE_SPEC: { method: 'POST'; path: string; spec: OperationSpec } = {
  method: 'POST',
  path: DELETION_REQUESTS_PATH,
  spec: {
    operationId: 'createDeletionRequest',
    summary:
      'Record a deletion request for one user: one delete notification per affected source is written to the ' +
      'events topic and delivered to that source’s enabled Webhooks destinations.',
    body: deletionRequestSchema,
    responses: {
      202: { description: 'The notifications are on Kafka.', schema: deletionAcceptedSchema },
      422: { description: 'An unknown source id (unknown_source).' },
    },
  },
};
