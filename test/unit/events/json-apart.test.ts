import fc from 'fast-check';
import { LosslessNumber, parse, type ParseOptions } from 'lossless-json';
import { JsonTooDeepError } from '../../../src/events/depth';
import { isLosslessNumber, parseJson, parseJsonText, stringifyJson } from '../../../src/events/json';

/**
 * A tracking body with inexact numbers is read in parts: JSON.parse for the exact ones, the
 * lossless parser for the `batch` elements (or the text outside them) that hold inexact numbers.
 * The result must be what the lossless parser gives for the whole text, as it did before.
 */
const WHOLE: ParseOptions = {
  parseNumber: (text) => (String(Number(text)) === text ? Number(text) : new LosslessNumber(text)),
  onDuplicateKey: ({ newValue }) => newValue,
};
const whole = (text: string): unknown => parse(text, null, WHOLE);

/** A value in a form toEqual compares strictly: own keys in order, prototypes, number kinds. */
function canonical(value: unknown): unknown {
  if (isLosslessNumber(value)) return { lossless: value.value };
  if (typeof value === 'number') return { number: Object.is(value, -0) ? '-0' : String(value) };
  if (Array.isArray(value)) return { array: value.map(canonical) };
  if (typeof value === 'object' && value !== null) {
    const plain = Object.getPrototypeOf(value) === Object.prototype;
    return {
      plain,
      entries: Object.keys(value).map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    };
  }
  return value;
}

function expectAsWhole(text: string): void {
  const expected = canonical(whole(text));
  expect(canonical(parseJsonText(text, { events: true }).value)).toEqual(expected);
  expect(canonical(parseJson(text))).toEqual(expected);
}

const int64Edges = [
  '9007199254740991',
  '9007199254740992',
  '9007199254740993',
  '-9007199254740993',
  '9223372036854775807',
  '-9223372036854775808',
  '18446744073709551615',
];
const numberEdges = [
  '0',
  '-0',
  '1.0',
  '-2.50',
  '0.1',
  '0.10',
  '1e3',
  '1E+3',
  '1e-7',
  '1e21',
  '1e400',
  '5e-324',
];

const numberText = fc.oneof(
  fc.constantFrom(...int64Edges, ...numberEdges),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  fc.integer({ min: -(2 ** 31), max: 2 ** 31 }).map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
  fc
    .tuple(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), fc.stringMatching(/^[0-9]{1,30}$/))
    .map(([i, f]) => `${i}.${f}`),
  fc
    .tuple(fc.integer({ min: -999, max: 999 }), fc.constantFrom('e', 'E', 'e+', 'e-', 'E-'), fc.nat(400))
    .map(([m, e, x]) => `${m}${e}${x}`),
);
const stringText = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 6 }).map((s) => JSON.stringify(s)),
  fc.string({ unit: 'binary', maxLength: 4 }).map((s) => JSON.stringify(s)),
  fc.constantFrom(
    '"\\u00e9\\ud83d\\ude00"',
    '"a\\/b\\"c\\\\"',
    '"\\ud800"',
    '"12345678901234567890"',
    '"Zoë 王 😀"',
  ),
);
const keyText = fc.oneof(
  fc.constantFrom(
    '"a"',
    '"a"',
    '"__proto__"',
    '"constructor"',
    '"properties"',
    '"traits"',
    '"k\\u0065y"',
    '"0"',
  ),
  stringText,
);
const ws = fc.constantFrom('', '', ' ', '\n  ');

const { value } = fc.letrec<{ value: string; object: string; array: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    numberText,
    stringText,
    fc.constantFrom('true', 'false', 'null'),
    tie('object'),
    tie('array'),
  ),
  object: fc
    .array(fc.tuple(keyText, ws, tie('value')), { maxLength: 4 })
    .map((members) => `{${members.map(([k, w, v]) => `${w}${k}${w}:${v}`).join(',')}}`),
  array: fc
    .array(fc.tuple(ws, tie('value')), { maxLength: 4 })
    .map((items) => `[${items.map(([w, v]) => w + v).join(',')}]`),
}));

/** A tracking body: a `batch` of elements (mostly objects), other root members before and after. */
const body = fc
  .tuple(
    fc.array(fc.tuple(keyText, value), { maxLength: 2 }),
    fc.array(
      fc.oneof(
        value,
        value.filter((v) => v.startsWith('{')),
      ),
      { maxLength: 6 },
    ),
    fc.array(fc.tuple(keyText, value), { maxLength: 2 }),
    ws,
  )
  .map(([before, elements, after, w]) => {
    const members = [...before, ['"batch"', `[${w}${elements.join(`,${w}`)}]`], ...after];
    return `{${members.map(([k, v]) => `${k}:${w}${v}`).join(',')}}`;
  });

describe('a tracking body read in parts', () => {
  it('gives what the lossless parser gives for the whole text, for random bodies', () => {
    fc.assert(
      fc.property(body, (text) => expectAsWhole(text)),
      { numRuns: 2_000 },
    );
  });

  it('gives what the lossless parser gives for the whole text, for any JSON value', () => {
    fc.assert(
      fc.property(value, (text) => expectAsWhole(text)),
      { numRuns: 1_000 },
    );
  });

  it.each([
    ['an int64 in one element', '{"batch":[{"a":1},{"id":9223372036854775807},{"b":"é"}],"sentAt":"x"}'],
    ['int64s at and around 2^53', `{"batch":[${int64Edges.map((n) => `{"n":${n}}`).join(',')}]}`],
    ['-0, trailing zeros, exponents', `{"batch":[{"n":[${numberEdges.join(',')}]},{"n":2}]}`],
    ['an inexact number outside the elements', '{"batch":[{"n":1},{"m":1.0}],"context":{"v":1.50}}'],
    ['an inexact scalar element', '{"batch":[{"n":1},12345678901234567890,{"m":1.0}]}'],
    ['a key twice, inexact then exact', '{"batch":[{"k":1.0,"k":1},{"k":1,"k":1.0}]}'],
    ['a key twice at the root', '{"k":1.0,"batch":[{"n":1.0}],"k":2,"batch":[{"m":1.0},{"m":1}]}'],
    ['an inexact element of a dropped "batch"', '{"batch":[{"n":1.0},{"n":2}],"batch":[{"m":3}]}'],
    ['a "batch" key written with an escape', '{"batch":[{"n":1.0}],"b\\u0061tch":[{"m":1.0},{"m":2}]}'],
    ['"batch" not an array in the end', '{"batch":[{"n":1.0}],"batch":{"0":{"n":1}}}'],
    ['nested arrays', '{"batch":[[1,[2.50,{"a":[1e3]}]],[1]]}'],
    [
      'escapes and Unicode next to an int64',
      '{"batch":[{"s":"\\"}\\u005d,{","n":-9223372036854775808,"t":"王😀"}]}',
    ],
  ])('%s', (_name, text) => {
    expectAsWhole(text);
  });

  it('keeps __proto__ an own key, at the root and in elements, without touching prototypes', () => {
    const text = '{"__proto__":{"x":1.0},"batch":[{"__proto__":{"polluted":12345678901234567890}},{"a":1}]}';
    expectAsWhole(text);
    const value = parseJsonText(text, { events: true }).value as Record<string, unknown>;
    const element = (value.batch as Record<string, unknown>[])[0]!;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(element)).toBe(Object.prototype);
    expect(Object.keys(element)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('prints the client digits back', () => {
    const text =
      '{"batch":[{"userId":"u","traits":{"id":9223372036854775807,"n":1.0}},{"x":[1,2]}],"sentAt":"t"}';
    expect(stringifyJson(parseJsonText(text, { events: true }).value)).toBe(text);
  });

  it.each([
    '{"batch":[{"n":1.0,,}]}',
    '{"batch":[{"n":1.0}],}',
    '{"batch":[{"n":1.0}],"x":tru}',
    '{"batch":[{"n":1},{"m":1.0}]',
  ])('refuses invalid JSON with the error the whole text gives: %j', (text) => {
    expect(() => whole(text)).toThrow(SyntaxError);
    let message = '';
    try {
      whole(text);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(() => parseJsonText(text, { events: true })).toThrow(message);
  });

  it('reads an element too deep for the lossless parser natively, beside one read losslessly', () => {
    const deep = '['.repeat(20_000) + ']'.repeat(20_000);
    const text = `{"batch":[{"n":1.0},${deep},{"m":2}],"x":3}`;
    const batch = (parseJsonText(text, { events: true }).value as { batch: unknown[] }).batch;
    expect(canonical(batch[0])).toEqual(canonical(whole('{"n":1.0}')));
    expect(batch[2]).toEqual({ m: 2 });
    expect(() => parseJsonText(`{"x":1.0,"c":${deep},"batch":[{"n":1.0}]}`, { events: true })).toThrow(
      JsonTooDeepError,
    );
  });
});
