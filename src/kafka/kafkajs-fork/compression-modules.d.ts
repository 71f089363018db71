// The compression libraries behind src/kafka/compression.ts ship no types.

declare module 'lz4js' {
  /** An LZ4 frame (the format Kafka's LZ4 batches use) decompressed. */
  export function decompress(src: Uint8Array, maxSize?: number): Uint8Array;
}

declare module 'kafkajs-snappy' {
  /** kafkajs's Snappy codec: raw Snappy, or the xerial framing Java producers write. */
  const codec: () => {
    compress(encoder: { buffer: Buffer }): Promise<Buffer>;
    decompress(buffer: Buffer): Promise<Buffer>;
  };
  export default codec;
}
