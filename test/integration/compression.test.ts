import { producerSettings } from '../../src/kafka/client';
import { ConcurrentConsumer } from '../../src/kafka/consumer';
import { CompressionTypes } from '../../src/kafka/kafkajs';
import { applyKafkajsFixes } from '../../src/kafka/kafkajs-fork';
import { createMetricsRegistry } from '../../src/observability/metrics';
import { silentLogger } from '../../src/observability/logger';
import { uniquePrefix } from '../support/app';
import { consumerSuite } from '../support/consumers';
import { eventually } from '../support/eventually';

/**
 * Batches compressed by the broker (a topic's `compression.type`: Kafka's own Java codecs, as a
 * Java producer would write them) and by kafkajs, on the real broker, read by Hookline's consumer:
 * its fetch path hands compressed batches to kafkajs, which looks the codec up. Without a codec,
 * kafkajs threw on every fetch of such a batch and the partition never moved again.
 */
describe('compressed batches', () => {
  const { kafka, admin, consumers } = consumerSuite('compression-test');
  // The codecs are part of the fork a Hookline process applies (createKafka does): plain kafkajs has none.
  beforeAll(() => void applyKafkajsFixes());

  async function readAll(topic: string, values: string[]): Promise<string[]> {
    const seen: string[] = [];
    const consumer = new ConcurrentConsumer({
      kafka,
      groupId: `${topic}.group`,
      topics: [topic],
      maxInFlight: 100,
      commitIntervalMs: 50,
      keyOrdered: false,
      logger: silentLogger(),
      metrics: createMetricsRegistry({ defaultMetrics: false }),
      handler: async (m) => void seen.push(m.message.value!.toString()),
    });
    consumers.push(consumer);
    await consumer.start();
    await eventually(
      async () => {
        const [entry] = await admin.fetchOffsets({ groupId: `${topic}.group`, topics: [topic] });
        return entry!.partitions[0]!.offset === String(values.length);
      },
      { what: 'every message handled and committed' },
    );
    return seen;
  }

  const values = Array.from({ length: 50 }, (_, i) => `event ${i} `.repeat(20));

  async function send(topic: string, compression?: CompressionTypes) {
    const producer = kafka.producer(producerSettings());
    await producer.connect();
    // Two batches, so that the second may start inside the first's fetch.
    for (const part of [values.slice(0, 25), values.slice(25)])
      await producer.send({ topic, acks: -1, compression, messages: part.map((value) => ({ value })) });
    await producer.disconnect();
  }

  it.each(['gzip', 'snappy', 'lz4', 'zstd'])(
    "reads and commits a topic's %s batches (compressed by the broker)",
    async (codec) => {
      const topic = `${uniquePrefix()}.compressed-${codec}`;
      await admin.createTopics({
        topics: [
          {
            topic,
            numPartitions: 1,
            replicationFactor: 1,
            configEntries: [{ name: 'compression.type', value: codec }],
          },
        ],
        waitForLeaders: true,
      });
      await send(topic);
      expect([...(await readAll(topic, values))].sort()).toEqual([...values].sort());
    },
  );

  it.each([
    ['gzip', CompressionTypes.GZIP],
    ['snappy', CompressionTypes.Snappy],
  ])('reads %s batches kafkajs compressed', async (codec, compression) => {
    const topic = `${uniquePrefix()}.producer-${codec}`;
    await admin.createTopics({
      topics: [{ topic, numPartitions: 1, replicationFactor: 1 }],
      waitForLeaders: true,
    });
    await send(topic, compression);
    expect([...(await readAll(topic, values))].sort()).toEqual([...values].sort());
  });
});
