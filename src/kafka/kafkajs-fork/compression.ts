import { createRequire } from 'node:module';
import { decompress as zstdDecompress } from 'fzstd';
import snappyCodec from 'kafkajs-snappy';
import { decompress as lz4Decompress } from 'lz4js';
import { applied, notApplied, type PatchResult } from './patch';

/**
 * The record batch compressions kafkajs leaves out: Snappy, LZ4 and ZSTD. Hookline writes its own
 * records uncompressed, but other producers (a Java or librdkafka client publishing to
 * hookline.events, or a topic's `compression.type`) may compress theirs, and kafkajs without a
 * codec throws on every fetch of such a batch, which stops the partition for good. All three are
 * pure JavaScript, so nothing is compiled at install. LZ4 and ZSTD are read only: Hookline never
 * writes them (and the JavaScript LZ4 frames lack the block-independence flag Kafka requires).
 */
export interface CompressionCodec {
  compress(encoder: { buffer: Buffer }): Promise<Buffer>;
  decompress(buffer: Buffer): Promise<Buffer>;
}

/** kafkajs's codec numbers (CompressionTypes). */
const SNAPPY = 2;
const LZ4 = 3;
const ZSTD = 4;

const asBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

const readOnly = (name: string) => () =>
  Promise.reject(new Error(`${name} is read, never written, by Hookline: write uncompressed`));

export const lz4Codec = (): CompressionCodec => ({
  compress: readOnly('LZ4'),
  decompress: async (buffer) => asBuffer(lz4Decompress(buffer)),
});

export const zstdCodec = (): CompressionCodec => ({
  compress: readOnly('ZSTD'),
  decompress: async (buffer) => asBuffer(zstdDecompress(buffer)),
});

/**
 * Puts the codecs into the table of the kafkajs `requireFrom` resolves (`CompressionCodecs`, which
 * kafkajs looks them up in). A public table, but process-wide: only Hookline's own processes do it.
 */
export function registerCompressionCodecs(requireFrom: NodeRequire = createRequire(__filename)): PatchResult {
  const { CompressionCodecs: codecs } = requireFrom('kafkajs') as {
    CompressionCodecs?: Record<number, () => unknown>;
  };
  if (typeof codecs !== 'object' || codecs === null) {
    return notApplied('compression-codecs', 'kafkajs exports no CompressionCodecs table');
  }
  if (codecs[SNAPPY] === snappyCodec && codecs[LZ4] === lz4Codec && codecs[ZSTD] === zstdCodec) {
    return applied('compression-codecs', true);
  }
  codecs[SNAPPY] = snappyCodec;
  codecs[LZ4] = lz4Codec;
  codecs[ZSTD] = zstdCodec;
  return applied('compression-codecs');
}
