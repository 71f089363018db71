import { computeSchema } from '../../../src/audiences/computations';
import { ruleSchema } from '../../../src/audiences/rules';
import { toValidationIssues } from '../../../src/http/validation';

const firstIssue = (schema: typeof ruleSchema | typeof computeSchema, value: unknown) => {
  const result = schema.safeParse(value);
  return result.success ? undefined : toValidationIssues(result.error)[0];
};

describe('ruleSchema', () => {
  it.each([
    { trait: { name: 'plan', equals: 'pro' } },
    { trait: { name: 'plan', exists: true } },
    { trait: { name: 'plan', in: ['pro', 'team'] } },
    { trait: { name: 'age', gte: 18 } },
    { event: { name: 'Order Completed' } },
    {
      event: {
        name: 'Order Completed',
        atLeast: 2,
        withinDays: 30,
        where: { currency: 'EUR', total: { gt: 10 } },
      },
    },
    { event: { name: 'Login', atMost: 0, withinHours: 12 } },
    { all: [{ trait: { name: 'plan', equals: 'pro' } }, { not: { event: { name: 'Churned' } } }] },
    {
      any: [
        { trait: { name: 'vip', equals: true } },
        { all: [{ event: { name: 'Order Completed', atLeast: 5 } }] },
      ],
    },
  ])('accepts %j', (rule) => {
    expect(ruleSchema.safeParse(rule).success).toBe(true);
  });

  it.each([
    [{}, '', /exactly one of trait, event, all, any, not/],
    [{ trait: { name: 'plan' }, event: { name: 'x' } }, '', /exactly one of/],
    [{ trait: { name: 'plan' } }, 'trait', /exactly one of equals, exists, in/],
    [{ trait: { name: 'plan', equals: 'a', in: ['b'] } }, 'trait', /exactly one of/],
    [{ trait: { name: 'age', gt: '18' } }, 'trait.gt', /number/],
    [{ event: { name: 'x', atLeast: -1 } }, 'event.atLeast', /0|>=/],
    [{ event: { name: 'x', withinDays: 1, withinHours: 2 } }, 'event', /withinDays or withinHours/],
    [{ event: { name: 'x', atLeast: 3, atMost: 2 } }, 'event', /atLeast must not exceed atMost/],
    [{ event: { name: 'x', when: 1 } }, 'event', /when/],
    [{ all: [] }, 'all', /1/],
    [{ all: [{ trait: { name: 'p', equals: 1 } }, { nope: 1 }] }, 'all.1', /exactly one of trait/],
    [{ not: { event: { name: '' } } }, 'not.event.name', /1/],
  ])('refuses %j at %j', (rule, path, message) => {
    const issue = firstIssue(ruleSchema, rule);
    expect(issue?.path).toBe(path);
    expect(issue?.message).toMatch(message);
  });
});

describe('computeSchema', () => {
  it.each([
    { count: { event: 'Order Completed' } },
    { count: { event: 'Order Completed', withinDays: 7 } },
    { sum: { event: 'Order Completed', property: 'total' } },
    { last: { event: 'Viewed', property: 'sku' } },
    { first: { event: 'Viewed', property: 'sku' } },
    { lastTrait: 'plan' },
  ])('accepts %j', (compute) => {
    expect(computeSchema.safeParse(compute).success).toBe(true);
  });

  it.each([{}, { count: {} }, { sum: { event: 'x' } }, { lastTrait: '' }, { median: { event: 'x' } }])(
    'refuses %j',
    (compute) => {
      expect(computeSchema.safeParse(compute).success).toBe(false);
    },
  );
});
