import { producerSettings } from '../../src/kafka/client';
import { ConcurrentConsumer } from '../../src/kafka/consumer';
import { DeliveredLookup, DELIVERED_FROM_HEADER, deliveredFrom } from '../../src/delivery/delivered-lookup';
import { systemClock } from '../../src/core/clock';
import { createMetricsRegistry } from '../../src/observability/metrics';
import { silentLogger } from '../../src/observability/logger';
import { uniquePrefix } from '../support/app';
import { consumerSuite } from '../support/consumers';
import { eventually } from '../support/eventually';

/**
 * A partition taken over from a member that did not release it (crashed, or stopped with work it
 * could not finish): what that member delivered without committing it, as its attempt records
 * say (DELIVERED_FROM_HEADER), is not delivered again (DeliveredLookup, handover.ts). And the
 * new owner does not wait for a release from a member no longer in the group.
 */
describe('ConcurrentConsumer: taking over a partition whose previous owner delivered work it did not commit', () => {
  const { kafka, memberKafka, admin, consumers } = consumerSuite('takeover-delivered-test');

  /** A work topic of `partitions`, an attempts topic beside it, and a connected producer. */
  async function topicsWithProducer(topic: string, partitions: number) {
    const attemptsTopic = `${topic}-attempts`;
    await admin.createTopics({
      topics: [
        { topic, numPartitions: partitions, replicationFactor: 1 },
        { topic: attemptsTopic, numPartitions: 2, replicationFactor: 1 },
      ],
      waitForLeaders: true,
    });
    const producer = kafka.producer(producerSettings());
    await producer.connect();
    const lookup = () =>
      new DeliveredLookup({
        kafka,
        admin,
        attemptsTopic,
        clientId: `${topic}-lookup`,
        clock: systemClock,
        logger: silentLogger(),
      });
    return { attemptsTopic, producer, lookup };
  }

  it('handles only what the attempt records do not show delivered', async () => {
    const topic = `${uniquePrefix()}.work`;
    const groupId = `${topic}.group`;
    const { attemptsTopic, producer, lookup } = await topicsWithProducer(topic, 1);
    const send = (values: string[]) =>
      producer.send({ topic, acks: -1, messages: values.map((value) => ({ key: value, value })) });
    await send(Array.from({ length: 10 }, (_, i) => `m${i}`));

    const handled: string[] = [];
    const member = (name: string, handle: (offset: string) => Promise<void>) => {
      const consumer = new ConcurrentConsumer({
        kafka: memberKafka(), // a process of its own (see consumerSuite)
        admin,
        groupId,
        topics: [topic],
        maxInFlight: 100,
        commitIntervalMs: 50,
        drainTimeoutMs: 200, // what is still running at stop is left, uncommitted
        // A left the group: nobody will release its partition, and B does not wait for it.
        handoverGraceMs: 60_000,
        sessionTimeoutMs: 6_000,
        doneBefore: (t, p) => lookup().offsets(t, p),
        logger: silentLogger(),
        metrics: createMetricsRegistry({ defaultMetrics: false }),
        handler: async ({ message }) => {
          handled.push(`${name}:${message.value!.toString()}`);
          await handle(message.offset);
        },
      });
      consumers.push(consumer);
      return consumer;
    };

    // A finishes m0–m4; it delivers m5, m6, m8 and m9 (their attempt records written) but never
    // gets to report them done, and m7 never gets an answer. It stops with those still running.
    const never = new Promise<void>(() => undefined);
    const a = member('A', async (offset) => {
      const n = Number(offset);
      if (n < 5) return;
      if (n !== 7)
        await producer.send({
          topic: attemptsTopic,
          acks: -1,
          messages: [
            {
              key: `d${n}`,
              value: 'attempt',
              headers: { [DELIVERED_FROM_HEADER]: deliveredFrom(topic, 0, offset) },
            },
          ],
        });
      await never;
    });
    await a.start();
    await eventually(() => handled.length === 10 || undefined, { what: 'A handed everything out' });
    await eventually(
      async () => {
        const [entry] = await admin.fetchOffsets({ groupId, topics: [topic] });
        return entry!.partitions[0]!.offset === '5' || undefined;
      },
      { what: 'A committed m0–m4' },
    );
    await a.stop();
    consumers.splice(consumers.indexOf(a), 1);

    const b = member('B', async () => undefined);
    await b.start();
    await send(['m10']);
    await eventually(() => handled.includes('B:m10') || undefined, {
      what: 'B handled the new message',
      timeoutMs: 30_000,
    });
    expect(handled.filter((h) => h.startsWith('B:'))).toEqual(['B:m7', 'B:m10']);
    await eventually(
      async () => {
        const [entry] = await admin.fetchOffsets({ groupId, topics: [topic] });
        return entry!.partitions[0]!.offset === '11' || undefined;
      },
      { what: 'B committed everything' },
    );
    // Per offset, the destinations (the attempt records' keys): what a router taking over skips.
    const byOffset = await lookup().byOffset(topic, 0);
    expect([...byOffset].sort()).toEqual([
      [5, ['d5']],
      [6, ['d6']],
      [8, ['d8']],
      [9, ['d9']],
    ]);
    await producer.disconnect();
  });

  it('takes no attempt record older than every record of the partition as its own (a topic created again)', async () => {
    const topic = `${uniquePrefix()}.events`;
    const { attemptsTopic, producer, lookup: newLookup } = await topicsWithProducer(topic, 2);
    const startedMs = Date.now();
    for (const partition of [0, 1])
      await producer.send({
        topic,
        acks: -1,
        messages: Array.from({ length: 5 }, (_, i) => ({ partition, value: `m${i}` })),
      });
    // Deliveries of the topic's earlier life, 30 s before any of its records, then real ones.
    const attempt = (partition: number, offset: number, destination: string, atMs: number) => ({
      key: destination,
      value: 'attempt',
      timestamp: String(atMs),
      headers: { [DELIVERED_FROM_HEADER]: deliveredFrom(topic, partition, String(offset)) },
    });
    const before = startedMs - 30_000;
    await producer.send({
      topic: attemptsTopic,
      acks: -1,
      messages: [
        attempt(0, 0, 'd-old', before),
        attempt(0, 1, 'd-old', before + 1),
        attempt(0, 2, 'd-old', before + 2),
        attempt(1, 0, 'd-old', before),
        attempt(1, 3, 'd-old', before + 3),
        attempt(0, 3, 'd-now', Date.now()),
        attempt(0, 4, 'd-now', Date.now()),
      ],
    });
    const lookup = newLookup();
    expect([...(await lookup.byOffset(topic, 0))].sort()).toEqual([
      [3, ['d-now']],
      [4, ['d-now']],
    ]);
    expect([...(await lookup.byOffset(topic, 1))]).toEqual([]);
    await producer.disconnect();
  });

  it('counts a transaction marker between the offsets found done as done: no hole for good, released at stop', async () => {
    // hookline.events holds the audiences' transactions. The offsets between two found done are
    // listed to fetch again, but a transaction's commit marker is never handed out: it stayed a
    // hole in every commit after, and the partition could never be released.
    const topic = `${uniquePrefix()}.events`;
    const groupId = `${topic}.group`;
    await admin.createTopics({
      topics: [{ topic, numPartitions: 1, replicationFactor: 1 }],
      waitForLeaders: true,
    });
    const producer = kafka.producer(producerSettings());
    const transactional = kafka.producer({
      ...producerSettings(),
      transactionalId: `${topic}-tx`,
      maxInFlightRequests: 1,
    });
    await Promise.all([producer.connect(), transactional.connect()]);
    await producer.send({ topic, acks: -1, messages: [{ value: 'a' }] }); // 0
    const transaction = await transactional.transaction();
    await transaction.send({ topic, acks: -1, messages: [{ value: 'b' }] }); // 1, its commit marker at 2
    await transaction.commit();
    // The coordinator writes the marker after the commit returns: c comes after it.
    await eventually(
      async () => ((await admin.fetchTopicOffsets(topic))[0]!.high === '3' ? true : undefined),
      {
        what: 'the commit marker written',
      },
    );
    await producer.send({ topic, acks: -1, messages: [{ value: 'c' }] }); // 3
    await Promise.all([producer.disconnect(), transactional.disconnect()]);

    const handled: string[] = [];
    const consumer = new ConcurrentConsumer({
      kafka: memberKafka(),
      admin,
      groupId,
      topics: [topic],
      maxInFlight: 100,
      commitIntervalMs: 50,
      handoverGraceMs: 200,
      doneBefore: async () => [1, 3], // b and c delivered by an owner that crashed before committing
      logger: silentLogger(),
      metrics: createMetricsRegistry({ defaultMetrics: false }),
      handler: async ({ message }) => void handled.push(message.value!.toString()),
    });
    consumers.push(consumer);
    await consumer.start();
    const commitOf = async () => {
      const [entry] = await admin.fetchOffsets({ groupId, topics: [topic] });
      const { offset, metadata } = entry!.partitions[0]!;
      return `${offset} ${metadata ?? ''}`.trim();
    };
    await eventually(async () => ((await commitOf()) === '4' ? true : undefined), {
      what: 'committed past the marker with no hole',
      timeoutMs: 20_000,
    });
    expect(handled).toEqual(['a']);
    await consumer.stop();
    consumers.splice(consumers.indexOf(consumer), 1);
    expect(await commitOf()).toBe('4 r1'); // released: its next owner starts at once
  });
});
