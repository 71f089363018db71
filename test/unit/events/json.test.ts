import { isLosslessNumber, parseJson, stringifyJson } from '../../../src/events/json';

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

  it('throws on invalid JSON', () => {
    expect(() => parseJson('{"a":')).toThrow(SyntaxError);
  });
});
