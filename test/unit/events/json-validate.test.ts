import fc from 'fast-check';
import { isJsonObjectText } from '../../../src/events/json-validate';

/** What the validator must agree with: JSON.parse succeeds and gives a non-array object. */
function parsesToObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

describe('isJsonObjectText', () => {
  it.each([
    ['an empty object', '{}', true],
    ['whitespace around and inside', ' \t\n\r{ "a" : [ 1 , { } , [ ] ] }\r\n ', true],
    ['every scalar', '{"s":"x","n":-0.5e+10,"t":true,"f":false,"z":null,"i":0,"e":1E400}', true],
    ['every escape', '{"a":"\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00E9 \\uD800"}', true],
    ['a raw lone surrogate and non-ASCII', '{"a":"\uD800 é 😀"}', true],
    ['duplicate keys', '{"a":1,"a":2}', true],
    ['deep nesting', `{"a":${'['.repeat(5_000)}${']'.repeat(5_000)}}`, true],
    ['an array', '[1]', false],
    ['a string', '"{}"', false],
    ['a number', '1', false],
    ['null', 'null', false],
    ['empty text', '', false],
    ['only whitespace', ' ', false],
    ['unclosed', '{"a":1', false],
    ['closed twice', '{}}', false],
    ['mismatched close', '{"a":[1}}', false],
    ['trailing comma in an object', '{"a":1,}', false],
    ['trailing comma in an array', '{"a":[1,]}', false],
    ['leading comma', '{,"a":1}', false],
    ['a key that is not a string', '{a:1}', false],
    ['a member without a colon', '{"a" 1}', false],
    ['a member without a value', '{"a":}', false],
    ['two values in a row', '{"a":1 2}', false],
    ['text after the object', '{} x', false],
    ['two objects', '{}{}', false],
    ['a byte-order mark', '\uFEFF{}', false],
    ['a non-breaking space', '{\u00A0}', false],
    ['a raw control character in a string', '{"a":"\u0001"}', false],
    ['a raw newline in a string', '{"a":"\n"}', false],
    ['an unterminated string', '{"a":"x}', false],
    ['a bad escape', '{"a":"\\x"}', false],
    ['a short \\u escape', '{"a":"\\u12"}', false],
    ['a \\u escape that is not hex', '{"a":"\\u12g4"}', false],
    ['a backslash at the end', '{"a":"\\', false],
    ['a leading zero', '{"a":01}', false],
    ['a leading plus', '{"a":+1}', false],
    ['a bare dot', '{"a":.5}', false],
    ['a dot without decimals', '{"a":1.}', false],
    ['an exponent without digits', '{"a":1e}', false],
    ['a minus alone', '{"a":-}', false],
    ['a minus and a dot', '{"a":-.5}', false],
    ['hex', '{"a":0x10}', false],
    ['Infinity', '{"a":Infinity}', false],
    ['NaN', '{"a":NaN}', false],
    ['a truncated literal', '{"a":tru}', false],
    ['a capitalised literal', '{"a":True}', false],
    ['a literal with more letters', '{"a":nulls}', false],
    ['single quotes', "{'a':1}", false],
    ['a comment', '{/* x */}', false],
  ])('%s', (_name, text, expected) => {
    expect(parsesToObject(text)).toBe(expected); // the table itself agrees with JSON.parse
    expect(isJsonObjectText(text)).toBe(expected);
  });

  it('agrees with JSON.parse on any JSON value, printed with or without whitespace', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.boolean(), (value, spaced) => {
        const text = JSON.stringify(value, null, spaced ? 2 : undefined);
        expect(isJsonObjectText(text)).toBe(parsesToObject(text));
      }),
      { numRuns: 500 },
    );
  });

  it('agrees with JSON.parse on objects with one character changed, cut or added', () => {
    const edits = fc.record({
      value: fc.dictionary(fc.string(), fc.jsonValue(), { minKeys: 1 }),
      at: fc.nat(),
      kind: fc.constantFrom('replace', 'delete', 'insert'),
      char: fc.constantFrom(...'{}[],:"\\ -+.0123456789eEtruefalsn\u0000\n\t/ux'.split('')),
    });
    fc.assert(
      fc.property(edits, ({ value, at, kind, char }) => {
        const text = JSON.stringify(value);
        const i = at % text.length;
        const edited =
          kind === 'replace'
            ? text.slice(0, i) + char + text.slice(i + 1)
            : kind === 'delete'
              ? text.slice(0, i) + text.slice(i + 1)
              : text.slice(0, i) + char + text.slice(i);
        expect(isJsonObjectText(edited)).toBe(parsesToObject(edited));
      }),
      { numRuns: 3_000 },
    );
  });

  it('agrees with JSON.parse on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(isJsonObjectText(text)).toBe(parsesToObject(text));
        expect(isJsonObjectText(`{"a":${text}}`)).toBe(parsesToObject(`{"a":${text}}`));
      }),
      { numRuns: 1_000 },
    );
  });
});
