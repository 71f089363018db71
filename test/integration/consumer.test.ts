import type { Consumer } from 'kafkajs';
import { producerSettings } from '../../src/kafka/client';
import { decodeHoles } from '../../src/kafka/commit-holes';
import { ConcurrentConsumer, type ConsumedMessage } from '../../src/kafka/consumer';
import { createMetricsRegistry } from '../../src/observability/metrics';
import { silentLogger } from '../../src/observability/logger';
import { uniquePrefix } from '../support/app';
import { consumerSuite, crashConsumer } from '../support/consumers';
import { eventually } from '../support/eventually';

/** The consumer runner on the real broker: concurrency, per-key order, commits with holes. */
describe('ConcurrentConsumer', () => {
  const { kafka, admin, consumers } = consumerSuite('runner-test');

  async function topicWith(messages: { key: string; value: string }[]): Promise<string> {
    const topic = `${uniquePrefix()}.runner`;
    await admin.createTopics({
      topics: [{ topic, numPartitions: 1, replicationFactor: 1 }],
      waitForLeaders: true,
    });
    const producer = kafka.producer(producerSettings());
    await producer.connect();
    await producer.send({ topic, acks: -1, messages });
    await producer.disconnect();
    return topic;
  }

  const settings = (topic: string, keyOrdered: boolean) => ({
    kafka,
    groupId: `${topic}.group`,
    topics: [topic],
    maxInFlight: 100,
    commitIntervalMs: 50,
    keyOrdered,
    logger: silentLogger(),
    metrics: createMetricsRegistry({ defaultMetrics: false }),
  });

  function start(topic: string, handler: (m: ConsumedMessage) => Promise<void>, keyOrdered: boolean) {
    const consumer = new ConcurrentConsumer({ ...settings(topic, keyOrdered), handler });
    consumers.push(consumer);
    return consumer.start().then(() => consumer);
  }

  const committed = async (topic: string) =>
    Number(
      (await admin.fetchOffsets({ groupId: `${topic}.group`, topics: [topic] }))[0]!.partitions[0]!.offset,
    );

  /** The committed offset, and the holes its metadata lists: e.g. `10 holes 3,6`. */
  const commitPoint = async (topic: string) => {
    const [entry] = await admin.fetchOffsets({ groupId: `${topic}.group`, topics: [topic] });
    const { offset, metadata } = entry!.partitions[0]!;
    const holes = decodeHoles(Number(offset), metadata);
    return holes.length > 0 ? `${offset} holes ${holes.join(',')}` : offset;
  };

  it('handles one key in offset order while other keys overtake it', async () => {
    // Key "slow": each earlier message takes longer than the next one.
    const messages = Array.from({ length: 12 }, (_, i) => ({
      key: i % 2 === 0 ? 'slow' : 'fast',
      value: String(i),
    }));
    const topic = await topicWith(messages);
    const done: string[] = [];
    await start(
      topic,
      async ({ message }) => {
        const i = Number(message.value!.toString());
        if (message.key!.toString() === 'slow') await new Promise((r) => setTimeout(r, (12 - i) * 15));
        done.push(`${message.key}:${i}`);
      },
      true,
    );
    await eventually(() => done.length === 12 || undefined, { what: 'all messages handled' });
    expect(done.filter((d) => d.startsWith('slow'))).toEqual([
      'slow:0',
      'slow:2',
      'slow:4',
      'slow:6',
      'slow:8',
      'slow:10',
    ]);
    // The fast key was not held back behind the slow one.
    expect(done.indexOf('fast:11')).toBeLessThan(done.indexOf('slow:0'));
    await eventually(async () => (await committed(topic)) === 12 || undefined, {
      what: 'commit of everything',
    });
  });

  it('commits past a message still in flight, listing it as a hole in the metadata', async () => {
    const topic = await topicWith(Array.from({ length: 10 }, (_, i) => ({ key: `k${i}`, value: String(i) })));
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const handled: number[] = [];
    await start(
      topic,
      async ({ message }) => {
        const i = Number(message.value!.toString());
        handled.push(i);
        if (i === 3) await gate;
      },
      false,
    );
    await eventually(async () => (await commitPoint(topic)) === '10 holes 3' || undefined, {
      what: 'commit of everything, 3 listed as a hole',
    });
    release();
    await eventually(async () => (await commitPoint(topic)) === '10' || undefined, {
      what: 'commit of everything, no hole left',
    });
    expect(handled.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('a member taking a partition over handles its holes again, and nothing else below the offset', async () => {
    const topic = await topicWith(Array.from({ length: 10 }, (_, i) => ({ key: `k${i}`, value: String(i) })));
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const first = new ConcurrentConsumer({
      ...settings(topic, false),
      drainTimeoutMs: 1, // gives up on 3 and 6 at once: as a crash would leave them
      handler: async ({ message }) => {
        if (['3', '6'].includes(message.value!.toString())) await gate;
      },
    });
    await first.start();
    await eventually(async () => (await commitPoint(topic)) === '10 holes 3,6' || undefined, {
      what: 'commit of everything, 3 and 6 listed as holes',
    });
    await first.stop();
    expect(await commitPoint(topic)).toBe('10 holes 3,6');

    const handled: number[] = [];
    await start(topic, async ({ message }) => void handled.push(Number(message.value!.toString())), false);
    await eventually(() => handled.length === 2 || undefined, { what: 'the holes handled' });
    const producer = kafka.producer(producerSettings());
    await producer.connect();
    await producer.send({ topic, acks: -1, messages: [{ key: 'k', value: '10' }] });
    await producer.disconnect();
    await eventually(async () => (await commitPoint(topic)) === '11' || undefined, {
      what: 'commit of everything, no hole left',
    });
    expect(handled).toEqual([3, 6, 10]);
    release();
  });

  it('reports lag from the broker on a timer, growing while the handler is stuck', async () => {
    const topic = await topicWith([{ key: 'k', value: 'stuck' }]);
    const metrics = createMetricsRegistry({ defaultMetrics: false });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const consumer = new ConcurrentConsumer({
      kafka,
      admin,
      groupId: `${topic}.group`,
      topics: [topic],
      handler: () => gate, // never done until released: nothing is committed
      maxInFlight: 1,
      logger: silentLogger(),
      metrics,
    });
    consumers.push(consumer);
    await consumer.start();
    const lag = async () => {
      const metric = await metrics.getSingleMetric('hookline_consumer_lag')!.get();
      return metric.values.find((v) => v.labels.topic === topic)?.value;
    };
    await eventually(async () => ((await lag()) === 1 ? true : undefined), {
      what: 'lag of 1',
      timeoutMs: 20_000,
    });
    const producer = kafka.producer(producerSettings());
    await producer.connect();
    await producer.send({
      topic,
      acks: -1,
      messages: [
        { key: 'k', value: 'a' },
        { key: 'k', value: 'b' },
      ],
    });
    await producer.disconnect();
    // The consumer fetches nothing more (its one slot is taken), yet the lag it reports grows.
    await eventually(async () => ((await lag()) === 3 ? true : undefined), {
      what: 'lag of 3',
      timeoutMs: 20_000,
    });
    release();
    await eventually(async () => ((await lag()) === 0 ? true : undefined), {
      what: 'lag of 0',
      timeoutMs: 20_000,
    });
  });

  it('holds no more messages than its holdBack allows, and follows it as it moves', async () => {
    const topic = await topicWith(Array.from({ length: 20 }, (_, i) => ({ key: `k${i}`, value: `m${i}` })));
    let bound = 3;
    let maxHeld = 0;
    const running = new Map<string, () => void>();
    const handled: string[] = [];
    const consumer = new ConcurrentConsumer({
      ...settings(topic, false),
      holdBack: { limit: (maxInFlight) => Math.min(maxInFlight, bound) },
      handler: (m) =>
        new Promise<void>((resolve) => {
          const value = m.message.value!.toString();
          running.set(value, () => {
            running.delete(value);
            handled.push(value);
            resolve();
          });
          maxHeld = Math.max(maxHeld, running.size);
        }),
    });
    consumers.push(consumer);
    await consumer.start();
    await eventually(async () => (running.size === 3 ? true : undefined), {
      what: '3 held',
      timeoutMs: 20_000,
    });
    await new Promise((r) => setTimeout(r, 300)); // a few of its looks again (every 100 ms)
    expect(running.size).toBe(3);
    // A higher bound is taken up without any message finishing.
    bound = 10;
    await eventually(async () => (running.size === 10 ? true : undefined), {
      what: '10 held',
      timeoutMs: 5_000,
    });
    expect(maxHeld).toBe(10);
    while (handled.length < 20) {
      await eventually(async () => (running.size > 0 ? true : undefined), {
        what: 'one held',
        timeoutMs: 5_000,
      });
      for (const release of [...running.values()]) release();
    }
    expect(maxHeld).toBe(10);
    await eventually(async () => ((await committed(topic)) === 20 ? true : undefined), {
      what: 'all 20 committed',
      timeoutMs: 20_000,
    });
  });

  it('stops cleanly while its kafkajs consumer is down after a crash, letting in-flight work finish', async () => {
    const topic = await topicWith([{ key: 'k', value: 'slow' }]);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let finished = false;
    const consumer = await start(
      topic,
      async () => {
        await gate;
        finished = true;
      },
      false,
    );
    await eventually(() => consumer.inFlightCount === 1 || undefined, { what: 'the message in flight' });
    // What a crash leaves until kafkajs's restart: its consumer stopped, its group gone. kafkajs
    // then refuses pause() ("Consumer group was not initialized"), which stop() used to let through
    // before draining, committing or disconnecting.
    await (consumer as unknown as { consumer: { stop(): Promise<void> } }).consumer.stop();
    const stopped = consumer.stop();
    setTimeout(release, 200);
    await expect(stopped).resolves.toBeUndefined();
    expect(finished).toBe(true); // drained before it returned
  });

  it('restarts its kafkajs consumer after a crash kafkajs does not restart from', async () => {
    const topic = await topicWith([{ key: 'k', value: 'first' }]);
    const handled: string[] = [];
    const consumer = await start(
      topic,
      async ({ message }) => void handled.push(message.value!.toString()),
      false,
    );
    await eventually(() => handled.length === 1 || undefined, { what: 'the first message' });
    const inner = (consumer as unknown as { consumer: Consumer }).consumer;
    expect(await crashConsumer(inner)).toBe(false); // kafkajs leaves it stopped

    const producer = kafka.producer(producerSettings());
    await producer.connect();
    await producer.send({ topic, acks: -1, messages: [{ key: 'k', value: 'second' }] });
    await producer.disconnect();
    await eventually(() => handled.length === 2 || undefined, {
      what: 'a message sent after the crash',
      timeoutMs: 20_000,
    });
    expect(handled).toEqual(['first', 'second']); // the restarted member went on from the commit
  });
});
