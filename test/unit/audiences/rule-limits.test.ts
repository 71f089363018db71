import { audienceCreateSchema, computedTraitCreateSchema } from '../../../src/audiences/api-schemas';
import {
  MAX_RULE_DEPTH,
  MAX_RULE_NODES,
  MAX_WINDOW_DAYS,
  ruleLimitIssues,
} from '../../../src/audiences/rule-limits';
import { HttpError } from '../../../src/http/respond';
import { validated } from '../../../src/http/validation';

const leaf = { trait: { name: 'plan', equals: 'pro' } };
/** A rule of `depth` levels: `not` around `not` ... around a trait condition. */
const nested = (depth: number): unknown => {
  let rule: unknown = leaf;
  for (let i = 1; i < depth; i++) rule = { not: rule };
  return rule;
};
/** An `any` of `n - 1` trait conditions: `n` rules in all. */
const wide = (n: number) => ({ any: Array.from({ length: n - 1 }, () => leaf) });

/** The 400 a creation body gets, or undefined when it is accepted. */
function refusal(schema: typeof audienceCreateSchema | typeof computedTraitCreateSchema, body: unknown) {
  try {
    validated(schema, body);
    return undefined;
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    return { status: err.status, code: err.code, issues: err.extra.issues };
  }
}
const newAudience = (rule: unknown) => refusal(audienceCreateSchema, { sourceId: 's', name: 'x', rule });

describe('rule size limits at creation', () => {
  it.each([
    ['nested as deep as allowed', nested(MAX_RULE_DEPTH), undefined],
    ['as many rules as allowed', wide(MAX_RULE_NODES), undefined],
    ['nested one deeper', nested(MAX_RULE_DEPTH + 1), `rules may nest at most ${MAX_RULE_DEPTH} deep`],
    ['one rule more', wide(MAX_RULE_NODES + 1), `at most ${MAX_RULE_NODES} rules`],
  ])('%s', (_what, rule, message) => {
    const answer = newAudience(rule);
    if (message === undefined) expect(answer).toBeUndefined();
    else {
      expect(answer).toMatchObject({ status: 400, code: 'validation_failed' });
      expect(answer!.issues).toEqual([
        expect.objectContaining({ code: 'too_big', message: expect.stringContaining(message) }),
      ]);
    }
  });

  it('names where a rule nests too deep', () => {
    const rule = { all: [leaf, nested(MAX_RULE_DEPTH)] };
    expect(newAudience(rule)!.issues).toEqual([
      expect.objectContaining({ path: `rule.all.1${'.not'.repeat(MAX_RULE_DEPTH - 1)}` }),
    ]);
  });

  it('refuses rules far too deep for the recursive schema with a 400, not a stack overflow', () => {
    for (const depth of [1_000, 50_000]) expect(newAudience(nested(depth))?.status).toBe(400);
  });

  it('refuses a huge array at once, without visiting its rules', () => {
    const huge = { all: Array.from({ length: 1_000_000 }, () => ({ not: 'no rule' })) };
    expect(ruleLimitIssues(huge)).toEqual([
      { path: [], message: expect.stringMatching(/at most 200 rules/) },
    ]);
  });
});

describe('window limits at creation', () => {
  const newTrait = (compute: unknown) =>
    refusal(computedTraitCreateSchema, { sourceId: 's', name: 'x', compute });
  const event = (window: object) => ({ event: { name: 'Order', ...window } });

  it.each([
    [{ withinDays: MAX_WINDOW_DAYS }, undefined],
    [{ withinHours: MAX_WINDOW_DAYS * 24 }, undefined],
    [{ withinDays: MAX_WINDOW_DAYS + 1 }, 'withinDays'],
    [{ withinDays: 1e308 }, 'withinDays'], // was a window of Infinity ms
    [{ withinDays: 1e6 }, 'withinDays'],
    [{ withinHours: MAX_WINDOW_DAYS * 24 + 1 }, 'withinHours'],
  ])('%j', (window, field) => {
    const answers = [
      [newAudience({ all: [leaf, event(window)] }), `rule.all.1.event.${field}`],
      [newTrait({ count: { event: 'Order', ...window } }), `compute.count.${field}`],
      [newTrait({ sum: { event: 'Order', property: 'total', ...window } }), `compute.sum.${field}`],
    ] as const;
    for (const [answer, path] of answers) {
      if (field === undefined) expect(answer).toBeUndefined();
      else expect(answer?.issues).toEqual([expect.objectContaining({ path, code: 'too_big' })]);
    }
  });
});
