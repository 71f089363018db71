import { LosslessNumber, parseJson } from '../../../src/events/json';
import { computeValue, evaluateRule } from '../../../src/audiences/evaluate';
import { plainNumber, withPlainNumbers } from '../../../src/audiences/plain-numbers';
import type { Rule } from '../../../src/audiences/rules';
import { applyEvent, emptyUserState, matchesWhere } from '../../../src/audiences/user-state';
import { specsOf, type Compute, type Computation } from '../../../src/audiences/computations';

const HOUR = 3_600_000;
const time = { nowMs: Date.parse('2024-05-01T00:00:00.000Z'), hourMs: HOUR };
const exact = (text: string) => new LosslessNumber(text);
/** A computed trait with this computation. */
const trait = (compute: Compute): Extract<Computation, { class: 'trait' }> => ({
  class: 'trait',
  id: 't',
  key: 't',
  sourceId: 's',
  compute,
});

describe('plainNumber', () => {
  it.each([
    ['100.0', 100],
    ['1e3', 1000],
    ['-2.50', -2.5],
    ['9007199254740993', 9007199254740992], // beyond 2^53: the nearest double
    ['123456789012345678901234567890', 1.2345678901234568e29],
  ])('%s → %d', (text, number) => {
    expect(plainNumber(exact(text))).toBe(number);
  });

  it('leaves every other value as it is', () => {
    for (const v of [1, 'x', null, undefined, true, { a: 1 }]) expect(plainNumber(v)).toBe(v);
  });
});

describe('withPlainNumbers', () => {
  it('converts at any depth and leaves an object without LosslessNumbers untouched', () => {
    const parsed = parseJson('{"ltv":100.0,"n":3,"address":{"zip":1e3},"tags":[1.50,"a"]}');
    expect(withPlainNumbers(parsed)).toEqual({ ltv: 100, n: 3, address: { zip: 1000 }, tags: [1.5, 'a'] });
    const plain = { n: 3, nested: { a: [1, 'b'] } };
    expect(withPlainNumbers(plain)).toBe(plain);
  });
});

describe('numbers written as 100.0, 1e3 or beyond 2^53 (LosslessNumbers from the events topic)', () => {
  const traits = parseJson('{"ltv":100.0,"big":1e3,"huge":9007199254740993}') as Record<string, unknown>;
  const state = emptyUserState('s', { userId: 'u1' });
  applyEvent(
    state,
    { type: 'identify', timestamp: '2024-05-01T00:00:00.000Z', traits },
    { counters: [], values: [] },
    HOUR,
  );

  it.each<[Rule, boolean]>([
    [{ trait: { name: 'ltv', gt: 50 } }, true],
    [{ trait: { name: 'ltv', lte: 100 } }, true],
    [{ trait: { name: 'ltv', equals: 100 } }, true],
    [{ trait: { name: 'ltv', in: [99, 100] } }, true],
    [{ trait: { name: 'big', gte: 1000 } }, true],
    [{ trait: { name: 'big', lt: 1000 } }, false],
    [{ trait: { name: 'huge', gt: 2 ** 53 - 1 } }, true],
    [{ trait: { name: 'huge', equals: 2 ** 53 } }, true], // compared as doubles
  ])('%j → %s', (rule, expected) => {
    expect(evaluateRule(rule, state, time)).toBe(expected);
  });

  it('are kept as numbers in the state, which stays a number after a JSON round trip', () => {
    const reloaded = JSON.parse(JSON.stringify(state)) as typeof state;
    expect(reloaded.traits).toEqual({ ltv: 100, big: 1000, huge: 9007199254740992 });
    const lastTrait = trait({ lastTrait: 'ltv' });
    expect(computeValue(lastTrait.compute, reloaded, time)).toBe(100);
  });

  it('match `where`, are summed, and a `last` value is a number', () => {
    const properties = parseJson('{"total":10.0,"price":{"amount":2.50}}') as Record<string, unknown>;
    expect(matchesWhere(properties, { total: 10, 'price.amount': { gt: 2 } })).toBe(true);
    const sum = trait({ sum: { event: 'Order', property: 'total' } });
    const last = trait({ last: { event: 'Order', property: 'price' } });
    const specs = { counters: specsOf(sum, HOUR).counters, values: specsOf(last, HOUR).values };
    const user = emptyUserState('s', { userId: 'u1' });
    const order = { type: 'track', event: 'Order', timestamp: '2024-05-01T00:00:00.000Z', properties };
    applyEvent(user, order, specs, HOUR);
    applyEvent(
      user,
      { ...order, properties: parseJson('{"total":9007199254740993}') as Record<string, unknown> },
      specs,
      HOUR,
    );
    expect(computeValue(sum.compute, user, time)).toBe(10 + 2 ** 53);
    expect(JSON.parse(JSON.stringify(computeValue(last.compute, user, time)))).toEqual({ amount: 2.5 });
  });
});
