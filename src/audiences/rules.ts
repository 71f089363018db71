import { z } from 'zod';

/**
 * The audience rule language (JSON, validated at creation; docs/audiences.md documents it):
 *  - `{"trait": {"name": "plan", "equals": "pro"}}`, or `exists`, `in`, `gt`, `gte`, `lt`, `lte`:
 *    over the user's latest traits (identify calls, merged);
 *  - `{"event": {"name": "Order Completed", "atLeast": 2, "atMost"?: 5, "withinDays"?: 30 |
 *    "withinHours"?: 12, "where"?: {"<property>": <value> | {<operator>: <value>}}}}`: over the
 *    user's track calls (no atLeast nor atMost = at least 1);
 *  - `{"all": [rules]}`, `{"any": [rules]}`, `{"not": rule}`.
 */
export type Scalar = string | number | boolean | null;

/** One operator applied to a value (a trait, an event property). */
export interface ValueCondition {
  equals?: Scalar;
  exists?: boolean;
  in?: Scalar[];
  gt?: number;
  gte?: number;
  lt?: number;
  lte?: number;
}

export interface TraitCondition extends ValueCondition {
  name: string;
}

export interface EventCondition {
  name: string;
  atLeast?: number;
  atMost?: number;
  withinDays?: number;
  withinHours?: number;
  /** Property (dotted path) → the value it must equal, or a condition. */
  where?: Record<string, Scalar | ValueCondition>;
}

export type Rule =
  { trait: TraitCondition } | { event: EventCondition } | { all: Rule[] } | { any: Rule[] } | { not: Rule };

const OPERATORS = ['equals', 'exists', 'in', 'gt', 'gte', 'lt', 'lte'] as const;
const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const count = z.number().int().nonnegative();
const positive = z.number().positive();

const valueConditionShape = {
  equals: scalar.optional(),
  exists: z.boolean().optional(),
  in: z.array(scalar).min(1).optional(),
  gt: z.number().optional(),
  gte: z.number().optional(),
  lt: z.number().optional(),
  lte: z.number().optional(),
};
const oneOperator = (c: object) => OPERATORS.filter((op) => op in c).length === 1;
const OPERATOR_MESSAGE = `give exactly one of ${OPERATORS.join(', ')}`;

export const valueConditionSchema = z.strictObject(valueConditionShape).refine(oneOperator, OPERATOR_MESSAGE);

const traitSchema = z
  .strictObject({ name: z.string().min(1), ...valueConditionShape })
  .refine(oneOperator, OPERATOR_MESSAGE);

const eventSchema = z
  .strictObject({
    name: z.string().min(1),
    atLeast: count.optional(),
    atMost: count.optional(),
    withinDays: positive.optional(),
    withinHours: positive.optional(),
    where: z.record(z.string().min(1), z.union([scalar, valueConditionSchema])).optional(),
  })
  .refine((e) => e.withinDays === undefined || e.withinHours === undefined, {
    message: 'give withinDays or withinHours, not both',
  })
  .refine((e) => e.atLeast === undefined || e.atMost === undefined || e.atLeast <= e.atMost, {
    message: 'atLeast must not exceed atMost',
  });

const RULE_KINDS = ['trait', 'event', 'all', 'any', 'not'] as const;

/** A rule, validated with messages that name the path and what was expected. */
export const ruleSchema: z.ZodType<Rule> = z.lazy(() =>
  z.unknown().transform((value, ctx): Rule => {
    const keys =
      value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : [];
    const kind = keys.length === 1 ? RULE_KINDS.find((k) => k === keys[0]) : undefined;
    if (!kind) {
      ctx.addIssue({
        code: 'custom',
        message: `a rule is an object with exactly one of ${RULE_KINDS.join(', ')}`,
      });
      return z.NEVER;
    }
    const shapes = {
      trait: z.strictObject({ trait: traitSchema }),
      event: z.strictObject({ event: eventSchema }),
      all: z.strictObject({ all: z.array(ruleSchema).min(1) }),
      any: z.strictObject({ any: z.array(ruleSchema).min(1) }),
      not: z.strictObject({ not: ruleSchema }),
    };
    const result = shapes[kind].safeParse(value);
    if (result.success) return result.data as Rule;
    for (const issue of result.error.issues) {
      ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path as (string | number)[] });
    }
    return z.NEVER;
  }),
);

/** The window of an event condition in ms (`hourMs` is one hour; tests scale it down), or undefined. */
export function windowMs(
  condition: { withinDays?: number; withinHours?: number },
  hourMs: number,
): number | undefined {
  if (condition.withinDays !== undefined) return condition.withinDays * 24 * hourMs;
  if (condition.withinHours !== undefined) return condition.withinHours * hourMs;
  return undefined;
}
