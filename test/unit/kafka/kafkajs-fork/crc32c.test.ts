import { createRequire } from 'node:module';
import fc from 'fast-check';
import {
  crc32c,
  crc32cImplementation,
  crc32cJs,
  nativeCrc32c,
} from '../../../../src/kafka/kafkajs-fork/crc32c';

const kafkajsCrc32c = createRequire(__filename)('kafkajs/src/protocol/recordBatch/crc32C') as (
  b: Buffer,
) => number;

const native = nativeCrc32c();

describe.each([
  ['crc32c (in use)', crc32c],
  ['crc32cJs', crc32cJs],
  ['@node-rs/crc32', native ?? crc32cJs],
])('%s', (_name, crc) => {
  it.each<[string, string, number]>([
    ['the check value of CRC-32C', '123456789', 0xe3069283],
    ['nothing', '', 0],
    ['one byte', 'a', 0xc1d04330],
    ['32 zero bytes (RFC 3720, B.4)', '\0'.repeat(32), 0x8a9136aa],
  ])('%s', (_case, text, expected) => {
    expect(crc(Buffer.from(text, 'latin1'))).toBe(expected);
  });

  it('agrees with kafkajs for any bytes, at any offset in a larger buffer', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2_000 }), fc.nat(16), (bytes, offset) => {
        const inside = Buffer.concat([Buffer.alloc(offset, 0xab), Buffer.from(bytes)]).subarray(offset);
        expect(crc(inside)).toBe(kafkajsCrc32c(inside));
      }),
      { numRuns: 300 },
    );
  });
});

describe('the implementation in use', () => {
  it('is the native one where @node-rs/crc32 ships a binary (as on the machines CI and the image run on)', () => {
    const shipped = ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64'];
    if (shipped.includes(`${process.platform}-${process.arch}`)) {
      expect(native).toBeDefined();
      expect(crc32cImplementation).toBe('native');
      expect(crc32c).toBe(native);
    }
  });

  it('is the JavaScript one when the native module does not load', () => {
    const missing = (() => {
      throw new Error("Cannot find module '@node-rs/crc32-linux-x64-gnu'");
    }) as unknown as NodeRequire;
    expect(nativeCrc32c(missing)).toBeUndefined();
    const wrong = (() => ({ crc32c: () => 0 })) as unknown as NodeRequire;
    expect(nativeCrc32c(wrong)).toBeUndefined();
  });
});
