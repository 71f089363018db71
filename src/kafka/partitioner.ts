import { Partitioners, type PartitionMetadata } from 'kafkajs';

const partitioner = Partitioners.DefaultPartitioner();

/**
 * The partition a key lands on in a topic of `count` partitions, as every Hookline producer
 * chooses it (murmur2, the Java client's default partitioner).
 */
export function partitionOfKey(key: string, count: number): number {
  const partitionMetadata: PartitionMetadata[] = Array.from({ length: count }, (_, partitionId) => ({
    partitionId,
    leader: 0,
    partitionErrorCode: 0,
    replicas: [0],
    isr: [0],
  }));
  return partitioner({ topic: 'any', partitionMetadata, message: { key, value: null } });
}
