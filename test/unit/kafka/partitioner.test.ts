import fc from 'fast-check';
import { Partitioners, type PartitionMetadata } from 'kafkajs';
import { hooklinePartitioner, murmur2OfKey, partitionOfKey } from '../../../src/kafka/partitioner';

// kafkajs's own murmur2 (64-bit Long arithmetic), the reference the 32-bit one must equal.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const kafkajsMurmur2 = require('kafkajs/src/producer/partitioners/default/murmur2') as (
  key: Buffer | string,
) => number;

const metadata = (count: number): PartitionMetadata[] =>
  Array.from({ length: count }, (_, partitionId) => ({
    partitionId,
    leader: 0,
    partitionErrorCode: 0,
    replicas: [0],
    isr: [0],
  }));

describe('murmur2 partitioner', () => {
  it("has the Java client's values (Kafka's UtilsTest)", () => {
    const cases: [string, number][] = [
      ['21', -973932308],
      ['foobar', -790332482],
      ['a-little-bit-long-string', -985981536],
      ['a-little-bit-longer-string', -1486304829],
      ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
      ['abc', 479470107],
    ];
    for (const [key, hash] of cases) {
      expect(murmur2OfKey(key)).toBe(hash);
      expect(murmur2OfKey(Buffer.from(key))).toBe(hash);
    }
  });

  it("equals kafkajs's murmur2 for any key, string (any UTF-8, short or long) or bytes", () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 600 }), (key) => {
        expect(murmur2OfKey(key)).toBe(kafkajsMurmur2(key));
      }),
      { numRuns: 2_000 },
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const key = Buffer.from(bytes);
        expect(murmur2OfKey(key)).toBe(kafkajsMurmur2(key));
      }),
      { numRuns: 2_000 },
    );
  });

  it("picks the partition kafkajs's default partitioner picks, keyed or not", () => {
    const ours = hooklinePartitioner();
    const theirs = Partitioners.DefaultPartitioner();
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), fc.integer({ min: 1, max: 64 }), (key, count) => {
        const args = { topic: 't', partitionMetadata: metadata(count), message: { key, value: null } };
        expect(ours(args)).toBe(theirs(args));
        expect(partitionOfKey(key, count)).toBe(theirs(args));
      }),
      { numRuns: 2_000 },
    );
    const explicit = {
      topic: 't',
      partitionMetadata: metadata(6),
      message: { key: 'k', value: null, partition: 4 },
    };
    expect(ours(explicit)).toBe(4);
    const unkeyed = { topic: 't', partitionMetadata: metadata(6), message: { value: null } };
    const spread = new Set(Array.from({ length: 12 }, () => ours(unkeyed)));
    expect(spread.size).toBe(6); // round robin, as kafkajs's
  });
});
