import { mergeSpecs, specsOf, type Compute, type Computation } from '../../../src/audiences/computations';
import { changes, computeValue, evaluateRule } from '../../../src/audiences/evaluate';
import type { Rule } from '../../../src/audiences/rules';
import {
  applyEvent,
  emptyUserState,
  matchesWhere,
  propertyAt,
  pruneBuckets,
  type StateInput,
} from '../../../src/audiences/user-state';

const HOUR = 3_600_000;
const T0 = Date.parse('2024-05-01T00:00:00.000Z');
const at = (hours: number) => new Date(T0 + hours * HOUR).toISOString();

const audience = (id: string, rule?: Rule): Computation => ({
  class: 'audience',
  id,
  sourceId: 's',
  key: id,
  rule,
});

function stateAfter(computations: Computation[], events: StateInput[]) {
  const specs = mergeSpecs(computations.map((c) => specsOf(c, HOUR)));
  const state = emptyUserState('s', { userId: 'u1' });
  for (const e of events) applyEvent(state, e, specs, HOUR);
  return { state, specs };
}

const track = (event: string, hours: number, properties: Record<string, unknown> = {}): StateInput => ({
  type: 'track',
  event,
  properties,
  timestamp: at(hours),
});
const identify = (traits: Record<string, unknown>, hours = 0): StateInput => ({
  type: 'identify',
  traits,
  timestamp: at(hours),
});

describe('evaluateRule', () => {
  const orders2in30d: Rule = {
    event: { name: 'Order Completed', atLeast: 2, withinDays: 30, where: { currency: 'EUR' } },
  };
  const cases: [string, Rule, StateInput[], number, boolean][] = [
    ['trait equals', { trait: { name: 'plan', equals: 'pro' } }, [identify({ plan: 'pro' })], 0, true],
    [
      'latest trait wins',
      { trait: { name: 'plan', equals: 'pro' } },
      [identify({ plan: 'pro' }), identify({ plan: 'free' })],
      0,
      false,
    ],
    [
      'traits merge',
      { trait: { name: 'plan', exists: true } },
      [identify({ plan: 'pro' }), identify({ age: 3 })],
      0,
      true,
    ],
    ['exists false', { trait: { name: 'plan', exists: false } }, [identify({ age: 3 })], 0, true],
    ['in', { trait: { name: 'plan', in: ['pro', 'team'] } }, [identify({ plan: 'team' })], 0, true],
    ['gt on a string', { trait: { name: 'age', gt: 3 } }, [identify({ age: '9' })], 0, false],
    ['gte', { trait: { name: 'age', gte: 18 } }, [identify({ age: 18 })], 0, true],
    ['lt', { trait: { name: 'age', lt: 18 } }, [identify({ age: 18 })], 0, false],
    ['event once, no count given', { event: { name: 'Signed Up' } }, [track('Signed Up', 0)], 0, true],
    ['event never', { event: { name: 'Signed Up' } }, [track('Other', 0)], 0, false],
    [
      '2 in window',
      orders2in30d,
      [track('Order Completed', 0, { currency: 'EUR' }), track('Order Completed', 1, { currency: 'EUR' })],
      2,
      true,
    ],
    [
      'where filters',
      orders2in30d,
      [track('Order Completed', 0, { currency: 'EUR' }), track('Order Completed', 1, { currency: 'USD' })],
      2,
      false,
    ],
    [
      'window expired',
      orders2in30d,
      [track('Order Completed', 0, { currency: 'EUR' }), track('Order Completed', 1, { currency: 'EUR' })],
      31 * 24,
      false,
    ],
    [
      'one of two expired',
      orders2in30d,
      [
        track('Order Completed', 0, { currency: 'EUR' }),
        track('Order Completed', 24 * 20, { currency: 'EUR' }),
      ],
      24 * 31,
      false,
    ],
    [
      'atMost',
      { event: { name: 'Login', atMost: 1, withinHours: 2 } },
      [track('Login', 0), track('Login', 0)],
      0,
      false,
    ],
    [
      'atMost after expiry',
      { event: { name: 'Login', atMost: 1, withinHours: 2 } },
      [track('Login', 0), track('Login', 0)],
      3,
      true,
    ],
    [
      'where operator',
      { event: { name: 'Buy', where: { 'item.price': { gte: 100 } } } },
      [track('Buy', 0, { item: { price: 150 } })],
      0,
      true,
    ],
    [
      'all',
      { all: [{ trait: { name: 'plan', equals: 'pro' } }, { event: { name: 'Buy' } }] },
      [identify({ plan: 'pro' })],
      0,
      false,
    ],
    [
      'any',
      { any: [{ trait: { name: 'plan', equals: 'pro' } }, { event: { name: 'Buy' } }] },
      [identify({ plan: 'pro' })],
      0,
      true,
    ],
    ['not', { not: { event: { name: 'Churned' } } }, [track('Buy', 0)], 0, true],
  ];
  it.each(cases)('%s', (_name, rule, events, nowHours, expected) => {
    const { state } = stateAfter([audience('a', rule)], events);
    expect(evaluateRule(rule, state, { nowMs: T0 + nowHours * HOUR, hourMs: HOUR })).toBe(expected);
  });
});

describe('computeValue', () => {
  const trait = (compute: Compute): Computation => ({
    class: 'trait',
    id: 't',
    sourceId: 's',
    key: 't',
    compute,
  });
  const events = [
    identify({ plan: 'pro' }),
    track('Order Completed', 0, { total: 10, sku: 'a' }),
    track('Order Completed', 24 * 5, { total: 5.5, sku: 'b' }),
    track('Order Completed', 24 * 9, { total: 'x', sku: 'c' }),
  ];
  it.each([
    [{ count: { event: 'Order Completed' } }, 3],
    [{ count: { event: 'Order Completed', withinDays: 7 } }, 2],
    [{ count: { event: 'Never' } }, undefined],
    [{ sum: { event: 'Order Completed', property: 'total' } }, 15.5],
    [{ sum: { event: 'Order Completed', property: 'total', withinDays: 7 } }, 5.5],
    [{ last: { event: 'Order Completed', property: 'sku' } }, 'c'],
    [{ first: { event: 'Order Completed', property: 'sku' } }, 'a'],
    [{ lastTrait: 'plan' }, 'pro'],
    [{ lastTrait: 'age' }, undefined],
  ] as const)('%j → %j', (compute, expected) => {
    const c = trait(compute as Compute);
    const { state } = stateAfter([c], events);
    expect(computeValue(compute as Compute, state, { nowMs: T0 + 24 * 10 * HOUR, hourMs: HOUR })).toBe(
      expected,
    );
  });
});

describe('changes (what to announce)', () => {
  const pro = audience('pro', { trait: { name: 'plan', equals: 'pro' } });
  const time = { nowMs: T0, hourMs: HOUR };

  it('a new member is announced true once; then nothing until they leave; then false', () => {
    const { state } = stateAfter([pro], [identify({ plan: 'pro' })]);
    const first = changes([pro], state, time);
    expect(first.map((c) => c.value)).toEqual([true]);
    state.announced.pro = true;
    expect(changes([pro], state, time)).toEqual([]);
    state.traits.plan = 'free';
    expect(changes([pro], state, time).map((c) => c.value)).toEqual([false]);
  });

  it('a user never announced as a member is not told false', () => {
    const { state } = stateAfter([pro], [identify({ plan: 'free' })]);
    expect(changes([pro], state, time)).toEqual([]);
  });

  it('synced audiences follow the synced flag', () => {
    const synced = audience('vip');
    const { state } = stateAfter([synced], []);
    expect(changes([synced], state, time)).toEqual([]);
    state.synced.vip = true;
    expect(changes([synced], state, time).map((c) => c.value)).toEqual([true]);
  });
});

describe('pruneBuckets', () => {
  it('keeps buckets only as long as the longest window reading them', () => {
    const a = audience('a', { event: { name: 'Login', withinHours: 2 } });
    const b = audience('b', { event: { name: 'Login', withinHours: 5 } });
    const { state, specs } = stateAfter([a, b], [track('Login', 0), track('Login', 3)]);
    expect(Object.keys(state.counters[specs.counters[0]!.key]!.buckets)).toHaveLength(2);
    expect(pruneBuckets(state, specs, T0 + 6 * HOUR, HOUR)).toBe(true);
    expect(Object.keys(state.counters[specs.counters[0]!.key]!.buckets)).toEqual([String(T0 + 3 * HOUR)]);
    expect(state.counters[specs.counters[0]!.key]!.total).toBe(2);
  });
});

describe('own properties only (a plain object inherits constructor, toString, __proto__)', () => {
  const inherited = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'];

  it.each(inherited)('`where` on %s matches only an event that has it', (name) => {
    expect(matchesWhere({}, { [name]: { exists: true } })).toBe(false);
    expect(matchesWhere({ product: {} }, { [`product.${name}`]: { exists: true } })).toBe(false);
    expect(propertyAt({ name: 'abc' }, 'name.length')).toBeUndefined();
    expect(matchesWhere(JSON.parse(`{"${name}": 1}`) as Record<string, unknown>, { [name]: 1 })).toBe(true);
  });

  it.each(inherited)('a trait rule or lastTrait on %s sees only a trait the user was sent', (name) => {
    const { state } = stateAfter([], [identify({ plan: 'pro' })]);
    const time = { nowMs: T0, hourMs: HOUR };
    expect(evaluateRule({ trait: { name, exists: true } }, state, time)).toBe(false);
    expect(computeValue({ lastTrait: name }, state, time)).toBeUndefined();
  });
});
