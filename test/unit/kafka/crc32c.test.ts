import { createRequire } from 'node:module';
import fc from 'fast-check';
import { crc32c } from '../../../src/kafka/crc32c';

const kafkajsCrc32c = createRequire(__filename)('kafkajs/src/protocol/recordBatch/crc32C') as (
  b: Buffer,
) => number;

describe('crc32c', () => {
  it.each<[string, string, number]>([
    ['the check value of CRC-32C', '123456789', 0xe3069283],
    ['nothing', '', 0],
    ['one byte', 'a', 0xc1d04330],
    ['32 zero bytes (RFC 3720, B.4)', '\0'.repeat(32), 0x8a9136aa],
  ])('%s', (_name, text, expected) => {
    expect(crc32c(Buffer.from(text, 'latin1'))).toBe(expected);
  });

  it('agrees with kafkajs for any bytes, at any offset in a larger buffer', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2_000 }), fc.nat(16), (bytes, offset) => {
        const inside = Buffer.concat([Buffer.alloc(offset, 0xab), Buffer.from(bytes)]).subarray(offset);
        expect(crc32c(inside)).toBe(kafkajsCrc32c(inside));
      }),
      { numRuns: 300 },
    );
  });
});
