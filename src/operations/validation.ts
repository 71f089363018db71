import { z } from 'zod';
import { ATTEMPT_OUTCOMES } from '../records/delivery-attempt';

/** Request schemas of the operations endpoints; they validate, and document in OpenAPI. */
const isoTime = z.iso
  .datetime({ offset: true })
  .meta({ description: 'ISO 8601, e.g. 2024-05-01T10:00:00Z.' });

/** A query-string integer between 1 and `max`, `fallback` when absent. */
const limit = (fallback: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, 'expected a whole number')
    .transform(Number)
    .pipe(z.number().int().min(1).max(max))
    .optional()
    .transform((v) => v ?? fallback);

const sinceBeforeUntil = (v: { since?: string; until?: string }) =>
  v.since === undefined || v.until === undefined || Date.parse(v.since) < Date.parse(v.until);
const sinceBeforeUntilIssue = { message: 'until must be after since', path: ['until'] };

export const MAX_LIMIT = 1_000;
export const DEFAULT_LIMIT = 100;

export const deadLetterQuerySchema = z
  .strictObject({
    destinationId: z.string().min(1).optional(),
    reason: z.string().min(1).optional(),
    since: isoTime.optional(),
    until: isoTime.optional(),
    limit: limit(DEFAULT_LIMIT, MAX_LIMIT),
  })
  .refine(sinceBeforeUntil, sinceBeforeUntilIssue);

export const attemptQuerySchema = z.strictObject({
  messageId: z.string().min(1).optional(),
  outcome: z.enum(ATTEMPT_OUTCOMES).optional(),
  limit: limit(DEFAULT_LIMIT, MAX_LIMIT),
});

export const redriveBodySchema = z
  .strictObject({
    destinationId: z.string().min(1).optional(),
    since: isoTime.optional(),
    until: isoTime.optional(),
    taskIds: z.array(z.string().min(1)).min(1).max(1_000).optional(),
  })
  .refine(sinceBeforeUntil, sinceBeforeUntilIssue)
  .meta({
    id: 'RedriveRequest',
    description:
      'Every given criterion must hold (times compare with deadLetteredAt); {} redrives every pending dead letter.',
  });

export const replayBodySchema = z
  .strictObject({ since: isoTime.meta({ description: 'Replay events written at or after this time.' }) })
  .meta({ id: 'ReplayRequest' });

/** Query parameter documentation for OpenAPI (the schemas above validate them). */
export const deadLetterQueryDocs = [
  { name: 'destinationId', description: 'Only this destination’s dead letters.', schema: { type: 'string' } },
  {
    name: 'reason',
    description: 'Only dead letters given up for this reason (retry_cutoff, http_410, …).',
    schema: { type: 'string' },
  },
  {
    name: 'since',
    description: 'Dead-lettered at or after (ISO 8601).',
    schema: { type: 'string', format: 'date-time' },
  },
  {
    name: 'until',
    description: 'Dead-lettered before (ISO 8601).',
    schema: { type: 'string', format: 'date-time' },
  },
  limitDoc(),
];

export const attemptQueryDocs = [
  { name: 'messageId', description: 'Only the attempts of this event.', schema: { type: 'string' } },
  {
    name: 'outcome',
    description: 'Only attempts with this outcome.',
    schema: { type: 'string', enum: [...ATTEMPT_OUTCOMES] },
  },
  limitDoc(),
];

function limitDoc() {
  return {
    name: 'limit',
    description: `At most this many, newest first (default ${DEFAULT_LIMIT}).`,
    schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
  };
}
