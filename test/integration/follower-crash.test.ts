import type { Consumer, Kafka } from 'kafkajs';
import { producerSettings } from '../../src/kafka/client';
import { startFollower, type Follower } from '../../src/kafka/follower';
import { silentLogger } from '../../src/observability/logger';
import { uniquePrefix } from '../support/app';
import { consumerSuite, crashConsumer } from '../support/consumers';
import { eventually } from '../support/eventually';

/**
 * A follower whose kafkajs consumer crashes goes on where its cursors are: after a crash kafkajs
 * restarts from (its retries ran out) and after one it does not (crash-restart.ts), without
 * reading its topic from the start again, and without handing a record over twice.
 */
describe('startFollower after a crash of its consumer', () => {
  const { kafka, admin } = consumerSuite('follower-crash-test');
  const followers: Follower[] = [];
  afterEach(async () => {
    await Promise.all(followers.splice(0).map((f) => f.stop()));
  });

  async function send(topic: string, values: string[]): Promise<void> {
    const producer = kafka.producer(producerSettings());
    await producer.connect();
    await producer.send({
      topic,
      acks: -1,
      messages: values.map((value, i) => ({ value, partition: i % 2 })),
    });
    await producer.disconnect();
  }

  /**
   * A follower of a new two-partition topic holding 10 records per partition, caught up; its
   * kafkajs consumer, and the first offset of every batch it processed since `watch()`.
   */
  async function caughtUpFollower() {
    const topic = `${uniquePrefix()}.followed`;
    await admin.createTopics({
      topics: [{ topic, numPartitions: 2, replicationFactor: 1 }],
      waitForLeaders: true,
    });
    await send(
      topic,
      Array.from({ length: 20 }, (_, i) => `old-${i}`),
    );
    let consumer: Consumer | undefined;
    const spy = Object.create(kafka) as Kafka;
    spy.consumer = (config) => (consumer = kafka.consumer(config));
    const handed: string[] = [];
    const follower = await startFollower({
      kafka: spy,
      admin,
      topic,
      groupIdPrefix: `${topic}.follower`,
      logger: silentLogger(),
      handleBatch: async (records) => {
        for (const r of records) handed.push(`${r.partition}:${r.offset}`);
      },
    });
    followers.push(follower);
    await follower.whenCaughtUp();
    expect(handed).toHaveLength(20);
    const batchStarts: number[] = [];
    const watch = () =>
      consumer!.on(consumer!.events.START_BATCH_PROCESS, ({ payload }) => {
        batchStarts.push(Number(payload.firstOffset));
      });
    return { topic, consumer: consumer!, follower, handed, batchStarts, watch };
  }

  async function goesOnFromItsCursors(rig: Awaited<ReturnType<typeof caughtUpFollower>>): Promise<void> {
    await send(rig.topic, ['new-0', 'new-1']);
    await eventually(() => rig.handed.length === 22 || undefined, {
      what: 'the records written after the crash',
      timeoutMs: 30_000,
    });
    expect(new Set(rig.handed).size).toBe(22); // none handed over twice
    expect(rig.follower.following()).toBe(true);
    // Read from where it was (offset 10 of each partition), not from the start again.
    expect(rig.batchStarts.length).toBeGreaterThan(0);
    expect(Math.min(...rig.batchStarts)).toBe(10);
  }

  it('restarts its consumer after a crash kafkajs does not restart from', async () => {
    const rig = await caughtUpFollower();
    rig.watch();
    expect(await crashConsumer(rig.consumer)).toBe(false); // kafkajs leaves it stopped
    await goesOnFromItsCursors(rig);
  });

  it('goes on from its cursors after kafkajs restarts it', async () => {
    const rig = await caughtUpFollower();
    rig.watch();
    // Fetches that keep failing with a retriable error until kafkajs's retries run out, as while
    // Kafka is away: kafkajs restarts the consumer, as a new member of the private group.
    const error = () => Object.assign(new Error('the broker is away'), { retriable: true });
    expect(await crashConsumer(rig.consumer, { times: 50, error })).toBe(true);
    await goesOnFromItsCursors(rig);
  });
});
