import { Kafka } from 'kafkajs';
import pino from 'pino';
import { WorkNotHeldError } from '../../src/core/errors';
import { producerSettings } from '../../src/kafka/client';
import { decodeHoles } from '../../src/kafka/commit-holes';
import { ConcurrentConsumer } from '../../src/kafka/consumer';
import type { ConsumedMessage } from '../../src/kafka/consumer-options';
import { createLogger, silentLogger } from '../../src/observability/logger';
import { createMetricsRegistry } from '../../src/observability/metrics';
import { launchLocalStack, type LocalStack } from '../../tools/devstack';
import { eventually } from '../support/eventually';

/**
 * A consumer whose broker is kill -9'd: kafkajs gives the consumer up (CRASH) and restarts it as a
 * new group member once the broker is back. Meanwhile it holds no partition, so work it had not
 * started yet must not start (another member may be given the partition and do it: a duplicate):
 * `held()` says so, the handler declines with WorkNotHeldError, and the message is handed out
 * again once the partition is back. Work already started finishes and is committed. On a broker of
 * its own (the global setup's cluster is shared with other test files, so it is never killed).
 */
jest.setTimeout(300_000);

let stack: LocalStack | undefined;
let consumer: ConcurrentConsumer | undefined;
let kafka: Kafka | undefined;
afterAll(async () => {
  await consumer?.stop().catch(() => undefined);
  await stack?.stop();
});

test('work not started while the consumer is out of the group is handed out again, not started', async () => {
  stack = await launchLocalStack({
    logger: createLogger({ name: 'consumer-outage', level: 'warn', destination: pino.destination(2) }),
  });
  kafka = new Kafka({ clientId: 'consumer-outage', brokers: stack.kafkaBrokers, logLevel: 0 });
  const admin = kafka.admin();
  await admin.connect();
  const topic = 'outage.work';
  const groupId = 'outage.group';
  // Leaders right after the broker's start can lag: the producer below retries until there is one.
  await admin.createTopics({
    topics: [{ topic, numPartitions: 1, replicationFactor: 1 }],
    waitForLeaders: false, // kafkajs waits by default, and fails on a broker this new
  });
  const producer = kafka.producer(producerSettings());
  await producer.connect();
  await producer.send({ topic, acks: -1, messages: [{ value: 'started' }, { value: 'queued' }] });
  await producer.disconnect();
  await admin.disconnect();

  let finishStarted!: () => void;
  const started = new Promise<void>((r) => (finishStarted = r));
  let startQueued!: () => void;
  const queuedMayStart = new Promise<void>((r) => (startQueued = r));
  const calls: { value: string; held: boolean }[] = [];
  let queued: ConsumedMessage | undefined;
  consumer = new ConcurrentConsumer({
    kafka,
    groupId,
    topics: [topic],
    maxInFlight: 10,
    commitIntervalMs: 100,
    sessionTimeoutMs: 6_000,
    logger: silentLogger(),
    metrics: createMetricsRegistry({ defaultMetrics: false }),
    handler: async (consumed) => {
      const value = consumed.message.value!.toString();
      if (value === 'started') {
        calls.push({ value, held: true });
        await started; // a delivery under way when the broker dies
        return;
      }
      if (!queued) {
        queued = consumed;
        await queuedMayStart; // waiting for its turn, as in a busy destination lane
      }
      const held = consumed.held?.() ?? true;
      calls.push({ value, held });
      if (!held) throw new WorkNotHeldError();
    },
  });
  await consumer.start();
  await eventually(() => (queued && calls.length === 1) || undefined, { what: 'both messages handed out' });
  expect(queued!.held!()).toBe(true);

  await stack.kafka.kill();
  await eventually(() => queued!.held!() === false || undefined, {
    what: 'the consumer to give its partition up (kafkajs crashes it without a broker)',
    timeoutMs: 120_000,
    intervalMs: 100,
  });
  startQueued(); // its turn comes while the consumer is out of the group: it declines
  await eventually(() => calls.length === 2 || undefined, { what: 'the queued message declined' });
  await stack.kafka.restart();

  // Back in the group with the partition: the declined message is handed out again and done.
  await eventually(() => calls.length === 3 || undefined, {
    what: 'the declined message handed out again',
    timeoutMs: 120_000,
  });
  finishStarted();
  expect(calls).toEqual([
    { value: 'started', held: true },
    { value: 'queued', held: false },
    { value: 'queued', held: true },
  ]);
  const reader = kafka.admin();
  await reader.connect();
  try {
    await eventually(
      async () => {
        const [entry] = await reader.fetchOffsets({ groupId, topics: [topic] });
        const { offset, metadata } = entry!.partitions[0]!;
        return (offset === '2' && decodeHoles(2, metadata).length === 0) || undefined;
      },
      { what: 'both messages committed', timeoutMs: 60_000 },
    );
  } finally {
    await reader.disconnect();
  }
});
