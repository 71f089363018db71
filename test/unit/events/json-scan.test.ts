import fc from 'fast-check';
import { numbersAreExact, scanJson } from '../../../src/events/json-scan';
import { jsonDepth } from '../../../src/events/depth';
import { objectByteLength } from '../../../src/events/json';

const asObject = (m: ReadonlyMap<string, string> | undefined) => (m ? Object.fromEntries(m) : m);

describe('scanJson', () => {
  it.each([
    [
      'a single event: the object and array values of its keys',
      '{"userId":"u","properties":{"a":[1,{"b":null}]},"context":{"ip":"1.2.3.4"},"list":[1,2],"n":3}',
      { properties: '{"a":[1,{"b":null}]}', context: '{"ip":"1.2.3.4"}', list: '[1,2]' },
    ],
    [
      'whitespace in a value: not as JSON.stringify prints it',
      '{"properties":{"a": 1},"context":{"b":2}}',
      { context: '{"b":2}' },
    ],
    [
      'whitespace around values is not theirs',
      '{ "properties" : {"a":1} ,\n"x":[] }',
      { properties: '{"a":1}', x: '[]' },
    ],
    ['a backslash in a value', '{"properties":{"a":"\\u00e9"},"context":{"b":"\\"}"}}', {}],
    [
      'braces and quotes inside strings',
      '{"properties":{"a":"}{][,\\":"},"context":{"b":"[x"}}',
      { context: '{"b":"[x"}' },
    ],
    [
      'a key written twice: the last value',
      '{"properties":{"a":1},"properties":{"b":2}}',
      { properties: '{"b":2}' },
    ],
    ['a key written twice, scalar last', '{"properties":{"a":1},"properties":5}', {}],
    ['an escaped key: nothing of that object', '{"propert\\u0069es":{"a":1},"context":{"b":2}}', undefined],
    [
      'an escaped key before a "batch": nothing of the root either',
      '{"propert\\u0069es":{"a":1},"batch":[{"x":{}}],"properties":{"b":2}}',
      undefined,
    ],
  ])('%s', (_name, text, expected) => {
    const scan = scanJson(text);
    expect(scan.exact).toBe(true);
    expect(asObject(scan.root)).toEqual(expected);
  });

  it('finds each batch element, objects or not, in order', () => {
    const text =
      '{"batch":[{"properties":{"a":1}},5,"s",[1],{"context":{"b":[]}},null,{"traits":{"c":"x y"}}],"context":{"d":1}}';
    const scan = scanJson(text);
    expect(scan.batch?.map(asObject)).toEqual([
      { properties: '{"a":1}' },
      undefined,
      undefined,
      undefined,
      { context: '{"b":[]}' },
      undefined,
      { traits: '{"c":"x y"}' },
    ]);
    expect(asObject(scan.root)).toEqual({ context: '{"d":1}' });
  });

  it('takes the last "batch", as JSON.parse does', () => {
    const scan = scanJson('{"batch":[{"properties":{"a":1}}],"batch":[{"properties":{"b":2}},{}]}');
    expect(scan.batch?.map(asObject)).toEqual([{ properties: '{"b":2}' }, {}]);
  });

  it.each([
    [
      'a "batch" key written with an escape after the literal one',
      '{"batch":[{"properties":{"who":"A"}}],"b\\u0061tch":[{"properties":{"who":"B"}}]}',
    ],
    [
      'a "batch" key written with an escape before the literal one',
      '{"b\\u0061tch":[{"context":[1,2]}],"batch":[{"context":{"ip":"1.2.3.4"}}]}',
    ],
    ['another root key written with an escape', '{"batch":[{"context":{"a":1}}],"cont\\u0065xt":{}}'],
  ])('gives no batch element texts when a root key has an escape: %s', (_name, text) => {
    // JSON.parse may keep another "batch" array than the one the scan followed.
    const scan = scanJson(text);
    expect(scan.root).toBeUndefined();
    expect(scan.batch).toBeUndefined();
  });

  it('says when a number would not survive JSON.parse, and then finds no texts', () => {
    expect(scanJson('{"properties":{"n":12345678901234567890}}')).toMatchObject({
      exact: false,
      root: undefined,
      batch: undefined,
    });
  });

  it.each([
    ['an event', '{"userId":"u","properties":{"a":[1,{"b":null}]}}', 4, 4, undefined],
    ['an empty object', '{}', 1, 1, undefined],
    [
      'a batch: outside and each element apart',
      '{"context":{"a":{}},"batch":[{"p":[[[]]]},5,[],{}]}',
      6,
      3,
      [4, 0, 1, 1],
    ],
    ['brackets in strings do not count', '{"batch":[{"p":"[[[{{{"}]}', 3, 2, [1]],
    ['after an inexact number too', '{"n":1.0,"batch":[{"p":[[]]},{"q":[[[[ ]]]]}]}', 7, 2, [3, 5]],
  ])('measures nesting: %s', (_name, text, depth, outsideDepth, batchDepths) => {
    const scan = scanJson(text);
    expect(scan).toMatchObject({ depth, outsideDepth, batchDepths });
    // Each element's span is its text.
    const parsed = JSON.parse(text) as { batch?: unknown[] };
    scan.batchDepths?.forEach((d, i) => {
      const [start, end] = [scan.batchSpans![2 * i]!, scan.batchSpans![2 * i + 1]!];
      if (d === 0) expect([start, end]).toEqual([-1, -1]);
      else expect(JSON.parse(text.slice(start, end))).toEqual(parsed.batch![i]);
    });
  });

  it.each([
    '',
    '{',
    '{"a":',
    '{"a":{"b":[1,2',
    '"unterminated',
    ']]]}}}',
    '{"batch":[{"a":{}}',
    'nul',
    // Stray closing brackets after the root closed, then a value or a key-like string.
    '{"a":[]],]-]}',
    '{}],"x"[]]',
    '],"a"[]]',
  ])('does not throw on invalid JSON: %j', (text) => {
    expect(() => scanJson(text)).not.toThrow();
  });

  it('does not throw on any sequence of JSON tokens', () => {
    const token = fc.constantFrom(
      '{',
      '}',
      '[',
      ']',
      ',',
      ':',
      '"a"',
      '"batch"',
      '"p"',
      '1',
      '-1.5',
      'true',
      ' ',
      '"\\""',
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 24 }), (tokens) => {
        const text = tokens.join('');
        expect(() => scanJson(text)).not.toThrow();
        expect(scanJson(text).exact).toBe(numbersAreExact(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('says a text is exact exactly when numbersAreExact does', () => {
    const number = fc.oneof(
      fc.double().map(String),
      fc.bigInt().map(String),
      fc.constantFrom('1.0', '-0', '1e3', '1E+3', '0.10', '12345678901234567890'),
    );
    const text = fc.oneof(
      fc.jsonValue().map((v) => JSON.stringify(v) ?? 'null'),
      fc.array(fc.oneof(number, fc.string()), { maxLength: 8 }).map((parts) => `{"a":[${parts.join(',')}]}`),
    );
    fc.assert(
      fc.property(text, (t) => {
        expect(scanJson(t).exact).toBe(numbersAreExact(t));
      }),
      { numRuns: 500 },
    );
  });

  it.each([
    ['no batch', '{"n":1.0}', false, undefined],
    ['exact everywhere', '{"batch":[{"n":1},2,[3]],"sentAt":"x"}', true, [true, true, true]],
    [
      'an int64 in one element',
      '{"batch":[{"n":1},{"n":-9223372036854775808},{}]}',
      true,
      [true, false, true],
    ],
    ['a float with a trailing zero outside', '{"batch":[{"n":1}],"x":1.0}', false, [true]],
    ['an inexact scalar element (outside)', '{"batch":[{"n":1},1e3]}', false, [true, true]],
    ['an inexact element of a first "batch"', '{"batch":[{"n":1.0}],"batch":[{"n":1}]}', false, [true]],
    ['after an inexact element', '{"batch":[{"n":1.0},{"m":1}],"x":2}', true, [false, true]],
    ['in nested arrays', '{"batch":[{"a":[[1,[2.50]]]},{"a":[[1,[2.5]]]}]}', true, [false, true]],
  ])('says where numbers are inexact: %s', (_name, text, outsideExact, batchExact) => {
    expect(scanJson(text)).toMatchObject({ outsideExact, batchExact });
  });

  it('says each batch element and the text outside them is exact as numbersAreExact does', () => {
    const number = fc.oneof(
      fc.integer().map(String),
      fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }).map(String),
      fc.constantFrom('1.0', '-0', '1e3', '0.10', '9007199254740993'),
    );
    const value = fc.oneof(
      number,
      fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
    );
    const element = fc.oneof(
      fc.array(value, { maxLength: 3 }).map((vs) => `{${vs.map((v, i) => `"k${i}":${v}`).join(',')}}`),
      fc.array(value, { maxLength: 3 }).map((vs) => `[${vs.join(',')}]`),
      value,
    );
    fc.assert(
      fc.property(fc.array(element, { maxLength: 5 }), value, (elements, other) => {
        const scan = scanJson(`{"a":${other},"batch":[${elements.join(',')}],"b":${other}}`);
        const isContainer = (e: string) => e.startsWith('{') || e.startsWith('[');
        expect(scan.batchExact).toEqual(elements.map((e) => !isContainer(e) || numbersAreExact(e)));
        const outside = `${other} ${elements.filter((e) => !isContainer(e)).join(' ')}`;
        expect(scan.outsideExact).toBe(numbersAreExact(outside));
        expect(scan.exact).toBe(scan.outsideExact && scan.batchExact!.every(Boolean));
      }),
      { numRuns: 500 },
    );
  });

  it('gives JSON.stringify’s text for every object value of compact JSON', () => {
    const event = fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 });
    fc.assert(
      fc.property(fc.array(event, { maxLength: 5 }), event, (items, root) => {
        const text = JSON.stringify({ ...root, batch: items });
        const scan = scanJson(text);
        fc.pre(scan.exact);
        if (Object.keys(root).some((key) => JSON.stringify(key).includes('\\'))) {
          // A root key with an escape might be "batch": the scan gives nothing then.
          expect(scan.batch).toBeUndefined();
          return;
        }
        const parsed = JSON.parse(text) as { batch: Record<string, unknown>[] } & Record<string, unknown>;
        expect(scan.batch).toHaveLength(parsed.batch.length);
        parsed.batch.forEach((item, i) => {
          const texts: Record<string, string> = {};
          const given: Record<string, string> = {};
          // The same length and texts as serialising the parsed values.
          expect(objectByteLength(item, given, true, scan.batch![i])).toBe(
            objectByteLength(item, texts, true),
          );
          expect(given).toEqual(texts);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('gives only texts that parse to the parsed values, whatever keys are written with escapes', () => {
    // Keys the scan looks at ("batch", the free-form fields), sometimes written as \\u escapes, which
    // the scan does not decode: it must then give nothing rather than another key's text.
    const escaped = (key: string) =>
      `"${[...key].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"`;
    const key = fc
      .tuple(fc.constantFrom('batch', 'properties', 'context', 'traits', 'a'), fc.boolean())
      .map(([k, escape]) => (escape ? escaped(k) : JSON.stringify(k)));
    const value = fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v));
    const object = fc
      .array(fc.tuple(key, value), { maxLength: 4 })
      .map((members) => `{${members.map(([k, v]) => `${k}:${v}`).join(',')}}`);
    const member = fc.oneof(
      fc.tuple(key, value),
      fc.tuple(
        key,
        fc.array(object, { maxLength: 3 }).map((items) => `[${items.join(',')}]`),
      ),
    );
    fc.assert(
      fc.property(fc.array(member, { maxLength: 5 }), (members) => {
        const text = `{${members.map(([k, v]) => `${k}:${v}`).join(',')}}`;
        const scan = scanJson(text);
        fc.pre(scan.exact);
        const parsed = JSON.parse(text) as Record<string, unknown>;
        for (const [k, t] of scan.root ?? []) expect(JSON.parse(t)).toEqual(parsed[k]);
        // A last "batch" that is no array: the request is refused (400), its texts unused.
        if (scan.batch === undefined || !Array.isArray(parsed.batch)) return;
        const batch = parsed.batch as unknown[];
        expect(scan.batch).toHaveLength(batch.length);
        scan.batch.forEach((texts, i) => {
          for (const [k, t] of texts ?? [])
            expect(JSON.parse(t)).toEqual((batch[i] as Record<string, unknown>)[k]);
        });
      }),
      { numRuns: 2000 },
    );
  });

  it('measures the depth jsonDepth measures on the parsed value, whole and per batch element', () => {
    const value = fc.jsonValue({ maxDepth: 6 });
    fc.assert(
      fc.property(fc.array(value, { maxLength: 4 }), value, fc.constantFrom(0, 1), (items, other, indent) => {
        const text = JSON.stringify({ other, batch: items }, null, indent);
        const scan = scanJson(text);
        expect(scan.depth).toBe(jsonDepth(JSON.parse(text), 1_000));
        expect(scan.outsideDepth).toBe(Math.max(2, 1 + jsonDepth(other, 1_000)));
        expect(scan.batchDepths).toEqual(items.map((item) => jsonDepth(item, 1_000)));
      }),
      { numRuns: 500 },
    );
  });

  it('gives, for any formatting, only texts that parse to the parsed values', () => {
    const event = fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 });
    fc.assert(
      fc.property(fc.array(event, { maxLength: 4 }), fc.constantFrom(0, 1, '\t'), (items, indent) => {
        const text = JSON.stringify({ batch: items }, null, indent);
        const scan = scanJson(text);
        fc.pre(scan.exact);
        const parsed = JSON.parse(text) as { batch: Record<string, unknown>[] };
        parsed.batch.forEach((item, i) => {
          for (const [key, value] of scan.batch![i] ?? []) expect(JSON.parse(value)).toEqual(item[key]);
        });
      }),
      { numRuns: 300 },
    );
  });
});
