import { stringify } from 'lossless-json';
import {
  LosslessNumber,
  isLosslessNumber,
  jsonByteLength,
  numbersAreExact,
  objectByteLength,
  parseJson,
  parseJsonText,
  stringifyJson,
  type JsonValue,
} from '../../../src/events/json';
import { JsonTooDeepError, jsonDepth } from '../../../src/events/depth';
import fc from 'fast-check';

describe('lossless JSON', () => {
  it.each([
    ['integers beyond 2^53', '{"n":12345678901234567890}'],
    ['negative big integers', '{"n":-98765432109876543210}'],
    ['floats written with a trailing zero', '{"n":1.0,"m":-2.50}'],
    ['exponents', '{"n":1e21,"m":6.02E23,"o":1e-7}'],
    ['plain numbers', '{"i":42,"f":0.1,"z":0,"neg":-3.25}'],
    ['nested arrays and objects', '{"a":[1,[2,{"b":[null,true,false]}]],"o":{"p":{"q":"r"}}}'],
    ['unicode, escapes and astral characters', '{"s":"é漢字😀","t":"line\\nbreak \\"quoted\\" \\u0000"}'],
    ['empty containers', '{"a":[],"o":{}}'],
  ])('round-trips %s byte for byte', (_name, text) => {
    expect(stringifyJson(parseJson(text))).toBe(text);
  });

  it('keeps exactly representable numbers as plain numbers', () => {
    const value = parseJson('{"i":42,"f":1.5,"big":9007199254740993}') as Record<string, unknown>;
    expect(value.i).toBe(42);
    expect(value.f).toBe(1.5);
    expect(isLosslessNumber(value.big)).toBe(true);
  });

  it('serialises bigint values from code', () => {
    expect(stringifyJson({ n: 2n ** 70n })).toBe('{"n":1180591620717411303424}');
  });

  it('prints plain values exactly as the lossless serialiser does (native fast path)', () => {
    // A deterministic pseudo-random generator, so a failure is reproducible.
    let seed = 42;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const pick = <T>(xs: T[]) => xs[Math.floor(next() * xs.length)]!;
    const value = (depth: number): unknown => {
      const kind = depth > 3 ? pick(['s', 'n', 'b', 'z']) : pick(['s', 'n', 'b', 'z', 'a', 'o', 'o']);
      if (kind === 's')
        return pick(['', 'plain', 'é漢字😀', 'quote " backslash \\ \n', '\u0000\u001f', '\ud800 lone']);
      if (kind === 'n')
        return pick([0, -1, 1.5, 1e21, 1e-7, -0, Number.MAX_SAFE_INTEGER, 0.1 + 0.2, NaN, Infinity]);
      if (kind === 'b') return next() < 0.5;
      if (kind === 'z') return null;
      if (kind === 'a') return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
      return Object.fromEntries(
        Array.from({ length: Math.floor(next() * 4) }, (_, i) => [`k${i}`, value(depth + 1)]),
      );
    };
    for (let i = 0; i < 500; i++) {
      const v = value(0);
      expect(stringifyJson(v)).toBe(
        stringify(v, (_k, x) => (typeof x === 'number' && !Number.isFinite(x) ? null : x)),
      );
    }
  });

  it.each([
    ['{"a":1,"b":-2.5,"c":"1.0 in a string","d":"-0","e":"\\"12345678901234567890"}', true],
    ['{"t":"2024-05-01T10:00:00.000Z","n":[0,1e+21,123456789]}', true],
    ['{"n":1e21}', false], // JavaScript prints it 1e+21
    ['{"a":1.0}', false],
    ['{"a":12345678901234567890}', false],
    ['{"a":-0}', false],
    ['{"a":1E5}', false],
    ['[0.1,0.10]', false],
    ['{"a":"ends in a backslash \\\\","n":1.0}', false], // the quote after \\ ends the string
    ['{"a":"an escaped quote \\" 1.0","n":1}', true],
    ['{"a":999999999999999,"b":1000000000000000}', true], // 15 digits, then 16 checked the long way
    ['{"a":9007199254740993}', false], // 16 digits, beyond 2^53
    ['{"a":007}', false], // a leading zero (invalid JSON) is not taken for exact
  ])('numbersAreExact(%s) is %s', (text, exact) => {
    expect(numbersAreExact(text)).toBe(exact);
  });

  it('throws on invalid JSON', () => {
    expect(() => parseJson('{"a":')).toThrow(SyntaxError);
  });
});

describe('objectByteLength', () => {
  const cases: [string, object][] = [
    ['an empty object', {}],
    ['plain fields', { type: 'track', n: 42, f: -1.5, t: true, f2: false, z: null, big: 1e21 }],
    ['non-finite numbers (printed null)', { a: NaN, b: Infinity, c: -0 }],
    ['escapes and non-ASCII', { 'k"ey': 'quote " back \\ \n \u0000', é: 'é漢字😀', lone: '\ud800' }],
    ['nested objects and arrays', { properties: { a: [1, { b: 'c' }], d: {} }, list: [] }],
    [
      'lossless numbers',
      { id: new LosslessNumber('12345678901234567890'), p: { x: new LosslessNumber('1.0') } },
    ],
    ['bigint and Date (from the producer library)', { n: 2n ** 70n, p: { at: new Date(0), m: 3n } }],
    [
      'undefined, functions and symbols, left out',
      { a: undefined, b: () => 1, c: Symbol('s'), d: 'kept', e: { f: undefined } },
    ],
  ];
  it.each(cases)('%s: as jsonByteLength says', (_name, object) => {
    expect(objectByteLength(object)).toBe(jsonByteLength(object));
  });

  it('hands over the JSON text of object and array fields, as stringifyJson prints them', () => {
    const object = { s: 'x', properties: { a: [1, new LosslessNumber('1.0')] }, list: [1, 2] };
    const texts: Record<string, string> = {};
    objectByteLength(object, texts);
    expect(texts).toEqual({ properties: stringifyJson(object.properties), list: '[1,2]' });
  });

  it('agrees with jsonByteLength on parsed events', () => {
    const text =
      '{"type":"track","userId":12345678901234567890,"event":"Ünïcode","properties":{"a":1.0,"b":[true,null]},"context":{"ip":"203.0.113.7"}}';
    const value = parseJson(text) as object;
    expect(objectByteLength(value)).toBe(jsonByteLength(value));
  });

  it('measures and serialises a plain parse the same with and without the lossless check', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (object) => {
        const parsed = parseJsonText(JSON.stringify(object));
        fc.pre(parsed.plain);
        const lossless: Record<string, string> = {};
        const plain: Record<string, string> = {};
        expect(objectByteLength(parsed.value as object, plain, true)).toBe(
          objectByteLength(parsed.value as object, lossless, false),
        );
        expect(plain).toEqual(lossless);
      }),
      { numRuns: 300 },
    );
  });
});

describe('parseJsonText', () => {
  it.each([
    ['plain numbers', '{"i":42,"f":0.25,"a":[1,-3]}', true],
    ['an integer beyond 2^53', '{"n":12345678901234567890}', false],
    ['a float written with a trailing zero', '{"n":1.0}', false],
    ['an exponent', '{"n":1e400}', false],
  ])('%s: plain is %s', (_name, text, plain) => {
    const parsed = parseJsonText(text);
    expect(parsed.plain).toBe(plain);
    expect(stringifyJson(parsed.value)).toBe(text);
  });

  it.each([
    ['exact numbers (JSON.parse)', '{"n":10.5,"p":{"k":1,"k":2}}', true],
    ['an inexact number (the lossless parser)', '{"n":10.50,"p":{"k":1,"k":2}}', false],
    ['a big integer, the key twice at the root', '{"n":12345678901234567890,"k":[1],"k":{"a":1}}', false],
  ])('takes the last of a key written twice, as JSON.parse does: %s', (_name, text, plain) => {
    const parsed = parseJsonText(text, { events: true });
    expect(parsed.plain).toBe(plain);
    const value = parsed.value as Record<string, JsonValue>;
    const expected = JSON.parse(text) as Record<string, unknown>;
    if ('p' in expected) expect(value.p).toEqual(expected.p);
    else expect(value.k).toEqual(expected.k);
    expect(parseJson(text)).toEqual(parsed.value);
  });

  const deep = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

  it('reads a batch element nested too deep for the lossless parser apart, the rest losslessly', () => {
    const text = `{"batch":[{"n":10.50},{"p":${deep(20_000)}},{"m":12345678901234567890}]}`;
    const { value, plain, scan } = parseJsonText(text, { events: true });
    expect(plain).toBe(false);
    expect(scan?.batchDepths).toEqual([1, 20_001, 1]);
    const batch = (value as { batch: JsonValue[] }).batch;
    expect(stringifyJson(batch[0])).toBe('{"n":10.50}');
    expect(stringifyJson(batch[2])).toBe('{"m":12345678901234567890}');
    expect(jsonDepth(batch[1], 30_000)).toBe(20_001);
  });

  it('throws JsonTooDeepError, not a RangeError, when the lossless parser cannot read the text', () => {
    expect(() => parseJsonText(`{"n":1.0,"context":${deep(20_000)},"batch":[]}`, { events: true })).toThrow(
      JsonTooDeepError,
    );
  });

  it.each(['{"a":[]],]-]}', '{}],"x"[]]', '{"batch":[{"p":{}}'])(
    "refuses invalid tracking JSON with the parser's own error: %j",
    (text) => {
      expect(() => parseJsonText(text, { events: true })).toThrow(SyntaxError);
    },
  );
});
