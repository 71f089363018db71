import * as avro from 'avsc';
import { FrameWriter, frame, unframe } from '../../../src/avro/wire';

describe('FrameWriter', () => {
  const type = avro.Type.forSchema({
    type: 'record',
    name: 'T',
    fields: [
      { name: 's', type: 'string' },
      { name: 'n', type: ['null', 'long'] },
    ],
  });

  it('writes what frame(id, toBuffer(value)) writes, record after record', () => {
    const writer = new FrameWriter();
    const values = [
      { s: '', n: null },
      { s: 'é漢字😀', n: 42 },
      { s: 'x'.repeat(40_000), n: -1 }, // beyond the scratch buffer: it grows
      { s: 'short again', n: 7 },
    ];
    const written = values.map((v) => writer.encode(99, type, v));
    values.forEach((v, i) => expect(written[i]!.equals(frame(99, type.toBuffer(v)))).toBe(true));
    // Each record owns its bytes: a later write does not change an earlier record.
    expect(unframe(written[1]!)).toEqual({ schemaId: 99, body: type.toBuffer(values[1]) });
  });

  it('throws on an invalid value, as toBuffer does', () => {
    expect(() => new FrameWriter().encode(1, type, { s: 1, n: null })).toThrow();
  });
});
