import { Partitioners, type ICustomPartitioner } from './kafkajs';

const M = 0x5bd1e995;
const SEED = 0x9747b28c;
/** Keys of at most this many UTF-8 bytes are hashed without a Buffer of their own. */
const SCRATCH_BYTES = 1_024;
const scratch = Buffer.allocUnsafe(SCRATCH_BYTES);

/**
 * Kafka's murmur2 (the Java client's `Utils.murmur2`, as kafkajs's default partitioner computes it)
 * in 32-bit arithmetic: the same value as kafkajs's, which multiplies 64-bit `Long` objects (about
 * ten allocations per four key bytes; the cost: docs/adr/0001-kafka-client.md). The low 32 bits of products
 * and xors depend only on the operands' low 32 bits, which `Math.imul` computes.
 */
export function murmur2(data: Uint8Array, length = data.length): number {
  let h = (SEED ^ length) | 0;
  const whole = length & ~3;
  for (let i = 0; i < whole; i += 4) {
    let k = data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    k = Math.imul(k, M);
    h = Math.imul(h, M) ^ k;
  }
  const rest = length & 3; // the last 1-3 bytes
  if (rest === 3) h ^= data[whole + 2]! << 16;
  if (rest >= 2) h ^= data[whole + 1]! << 8;
  if (rest >= 1) h = Math.imul(h ^ data[whole]!, M);
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}

/** murmur2 of a key as kafkajs sees it: a Buffer as it is, anything else as the UTF-8 of its text. */
export function murmur2OfKey(key: Buffer | string): number {
  if (Buffer.isBuffer(key)) return murmur2(key);
  const text = String(key);
  if (text.length * 3 <= SCRATCH_BYTES) return murmur2(scratch, scratch.write(text, 0, 'utf8'));
  return murmur2(Buffer.from(text, 'utf8'));
}

/** The partition of a key among `count`, as kafkajs's (and the Java client's) default partitioner picks it. */
export function partitionOfKey(key: Buffer | string, count: number): number {
  return (murmur2OfKey(key) & 0x7fffffff) % count;
}

/**
 * kafkajs's `DefaultPartitioner` (murmur2 of the key, as the Java client, so keys land on the same
 * partitions whatever client wrote them), with the hash above for keyed records. A record with an
 * explicit partition, or without a key, goes where kafkajs's own would put it (round robin).
 */
export const hooklinePartitioner: ICustomPartitioner = () => {
  const fallback = Partitioners.DefaultPartitioner();
  return (args) => {
    const { message, partitionMetadata } = args;
    if (message.partition === undefined || message.partition === null) {
      if (message.key !== undefined && message.key !== null)
        return partitionOfKey(message.key, partitionMetadata.length);
    }
    return fallback(args);
  };
};
