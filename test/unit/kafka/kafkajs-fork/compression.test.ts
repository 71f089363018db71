import { CompressionCodecs, CompressionTypes } from '../../../../src/kafka/kafkajs';
import {
  lz4Codec,
  registerCompressionCodecs,
  zstdCodec,
  type CompressionCodec,
} from '../../../../src/kafka/kafkajs-fork/compression';

beforeAll(() => {
  // What a Hookline process's kafkajs has (applyKafkajsFixes); plain kafkajs has none of them.
  expect(registerCompressionCodecs().status).toMatch(/applied/);
});

const TEXT = 'Hookline reads compressed batches. '.repeat(20);

/**
 * Frames written by the reference tools (`zstd -c`, `lz4 -c` 1.9), as a Java or librdkafka
 * producer writes them into a batch: Hookline must read what it did not write itself.
 */
const ZSTD_FRAME = 'KLUv/WS8AWUBADQCSG9va2xpbmUgcmVhZHMgY29tcHJlc3NlZCBiYXRjaGVzLiABALNkKvUEeiQ4Qw==';
const LZ4_FRAME =
  'BCJNGGRApzAAAAD/FEhvb2tsaW5lIHJlYWRzIGNvbXByZXNzZWQgYmF0Y2hlcy4gIwD//4NQaGVzLiAAAAAADs8eRw==';

/** The xerial framing of Snappy that Java's producer writes: a header, then length-prefixed blocks. */
function xerialFrame(blocks: Buffer[]): Buffer {
  const header = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0, 0, 0, 0, 1, 0, 0, 0, 1]);
  const sized = blocks.flatMap((b) => {
    const size = Buffer.alloc(4);
    size.writeUInt32BE(b.length);
    return [size, b];
  });
  return Buffer.concat([header, ...sized]);
}

/** The codec kafkajs looks up for a compression type. */
const codecOf = (type: CompressionTypes) =>
  (CompressionCodecs[type as keyof typeof CompressionCodecs] as () => CompressionCodec)();

describe('compression codecs', () => {
  it('reads a ZSTD frame', async () => {
    const out = await zstdCodec().decompress(Buffer.from(ZSTD_FRAME, 'base64'));
    expect(out.toString()).toBe(TEXT);
  });

  it('reads an LZ4 frame', async () => {
    expect((await lz4Codec().decompress(Buffer.from(LZ4_FRAME, 'base64'))).toString()).toBe(TEXT);
  });

  it.each([
    ['ZSTD', zstdCodec],
    ['LZ4', lz4Codec],
  ])('writes no %s, saying so', async (_name, codec) => {
    await expect(codec().compress({ buffer: Buffer.from(TEXT) })).rejects.toThrow(/never written/);
  });

  it.each([
    ['Snappy', CompressionTypes.Snappy],
    ['GZIP', CompressionTypes.GZIP],
  ])('kafkajs has a %s codec that reads back what it writes', async (_name, type) => {
    const codec = (
      CompressionCodecs[type as keyof typeof CompressionCodecs] as () => {
        compress(e: { buffer: Buffer }): Promise<Buffer>;
        decompress(b: Buffer): Promise<Buffer>;
      }
    )();
    const written = await codec.compress({ buffer: Buffer.from(TEXT) });
    expect((await codec.decompress(written)).toString()).toBe(TEXT);
  });

  it('reads Snappy in the xerial framing of Java producers, over several blocks', async () => {
    const codec = codecOf(CompressionTypes.Snappy);
    const half = TEXT.length / 2;
    const blocks = await Promise.all(
      [TEXT.slice(0, half), TEXT.slice(half)].map((part) => codec.compress({ buffer: Buffer.from(part) })),
    );
    expect((await codec.decompress(xerialFrame(blocks))).toString()).toBe(TEXT);
  });
});
