import { z } from 'zod';
import { computeSchema } from './computations';
import { ruleLimitIssues, windowIssue, type LimitIssue } from './rule-limits';
import { ruleSchema } from './rules';
import { snakeCase } from './snake-case';

const MAX_NAME_CHARS = 200;

const name = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(MAX_NAME_CHARS, `must be at most ${MAX_NAME_CHARS} characters`)
  .refine(
    (n) => snakeCase(n) !== '',
    'must contain a letter or a digit (its snake_case form is the trait key)',
  )
  .meta({ description: 'Its snake_case form is the trait key sent in identify calls (unique per source).' });

/** Adds the limits a new definition breaks (rule-limits.ts) as issues of code `too_big`. */
function limitIssues(issues: LimitIssue[], ctx: z.RefinementCtx): void {
  for (const { path, message } of issues)
    ctx.addIssue({ code: 'custom', message, path, params: { code: 'too_big' } });
}

/** A new audience's rule: the limits checked first (cheap, iterative), then the rule's schema. */
const newRuleSchema = z
  .unknown()
  .superRefine((rule, ctx) => limitIssues(ruleLimitIssues(rule), ctx))
  .pipe(ruleSchema);

/** A new computed trait: its window (count, sum) at most MAX_WINDOW_DAYS. */
const newComputeSchema = computeSchema.superRefine((compute, ctx) => {
  const [kind, window] = Object.entries(compute)[0]!;
  const issue = windowIssue(window, [kind]);
  if (issue) limitIssues([issue], ctx);
});

const sourceId = z.string().min(1).meta({ description: 'The source whose users it is computed for.' });

export const audienceCreateSchema = z
  .strictObject({
    sourceId,
    name,
    rule: newRuleSchema.optional().meta({
      description:
        'The rule (docs/audiences.md, Rules): trait, event, all, any, not. Absent: a synced audience, ' +
        'whose members are given through POST /api/v1/audiences/{id}/sync.',
    }),
  })
  .meta({ id: 'AudienceCreate' });

export const computedTraitCreateSchema = z
  .strictObject({
    sourceId,
    name,
    compute: newComputeSchema.meta({
      description: 'count, sum, last, first or lastTrait (docs/audiences.md, Computed traits).',
    }),
  })
  .meta({ id: 'ComputedTraitCreate' });

const common = {
  id: z.string(),
  sourceId: z.string(),
  name: z.string(),
  key: z.string().meta({ description: 'The trait key: snake_case of the name.' }),
  createdAt: z.string(),
  updatedAt: z.string(),
  state: z.enum(['computing', 'live']).meta({
    description:
      'computing: the first members (users with a value) are being found and announced; live: done on ' +
      'every partition, only changes are sent from now on.',
  }),
  members: z.number().int().meta({ description: 'Members (computed trait: users with a value), once live.' }),
};

export const audienceViewSchema = z
  .object({
    ...common,
    kind: z.enum(['rule', 'synced']),
    rule: z.unknown().optional(),
  })
  .meta({ id: 'Audience' });

export const computedTraitViewSchema = z
  .object({ ...common, compute: z.unknown() })
  .meta({ id: 'ComputedTrait' });

export const syncAcceptedSchema = z
  .object({ syncId: z.string(), add: z.number().int(), remove: z.number().int(), full: z.boolean() })
  .meta({ id: 'AudienceSyncAccepted' });

export const audienceListSchema = z.object({ audiences: z.array(audienceViewSchema) });
export const computedTraitListSchema = z.object({ computedTraits: z.array(computedTraitViewSchema) });
