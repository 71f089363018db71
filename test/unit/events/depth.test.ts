import { LosslessNumber } from 'lossless-json';
import { CUT_MARKER, MAX_EVENT_DEPTH, cutBelowDepth, jsonDepth } from '../../../src/events/depth';

/** `levels` arrays inside one another, the innermost empty. */
const nested = (levels: number): unknown => {
  let value: unknown = [];
  for (let i = 1; i < levels; i++) value = [value];
  return value;
};

describe('jsonDepth', () => {
  it.each([
    ['a scalar', 'x', 0],
    ['null', null, 0],
    ['an empty object', {}, 1],
    ['an empty array', [], 1],
    ['an event with properties', { properties: { a: [1, { b: null }] } }, 4],
    ['the deepest branch counts', { a: {}, b: [[[]]], c: 1 }, 4],
    [
      'Date, LosslessNumber and bigint are leaves',
      { a: new Date(0), n: new LosslessNumber('1.0'), b: 1n },
      1,
    ],
    ['a null-prototype object is an object', Object.assign(Object.create(null) as object, { a: {} }), 2],
  ])('%s', (_name, value, depth) => {
    expect(jsonDepth(value, MAX_EVENT_DEPTH)).toBe(depth);
  });

  it('stops at atMost + 1, however deep the value, without overflowing the stack', () => {
    expect(jsonDepth(nested(10), 10)).toBe(10);
    expect(jsonDepth(nested(11), 10)).toBe(11);
    expect(jsonDepth(nested(1_000_000), 10)).toBe(11);
  });

  it('gives atMost + 1 for a cyclic value', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(jsonDepth(cyclic, MAX_EVENT_DEPTH)).toBe(MAX_EVENT_DEPTH + 1);
  });
});

describe('cutBelowDepth', () => {
  it.each([
    ['a scalar stays', 5, 0, 5],
    ['a container at depth 0 is cut', { a: 1 }, 0, CUT_MARKER],
    ['what fits stays', { a: [1, { b: 2 }] }, 3, { a: [1, { b: 2 }] }],
    ['deeper containers become the marker', { a: [1, { b: 2 }], c: 'x' }, 2, { a: [1, CUT_MARKER], c: 'x' }],
  ])('%s', (_name, value, depth, expected) => {
    expect(cutBelowDepth(value, depth)).toEqual(expected);
  });

  it('keeps a "__proto__" key as a key', () => {
    const value = JSON.parse('{"__proto__":{"x":[1]}}') as unknown;
    const cut = cutBelowDepth(value, 2) as Record<string, unknown>;
    expect(Object.getPrototypeOf(cut)).toBe(Object.prototype);
    expect(JSON.stringify(cut)).toBe(`{"__proto__":{"x":${JSON.stringify(CUT_MARKER)}}}`);
  });

  it('gives a value any serialiser prints, from one nested a million levels', () => {
    const cut = cutBelowDepth({ p: nested(1_000_000) }, MAX_EVENT_DEPTH);
    expect(jsonDepth(cut, MAX_EVENT_DEPTH)).toBe(MAX_EVENT_DEPTH);
    expect(() => JSON.stringify(cut)).not.toThrow();
  });
});
