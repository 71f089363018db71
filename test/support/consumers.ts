import { Kafka, type Consumer } from 'kafkajs';
import type { ConcurrentConsumer } from '../../src/kafka/consumer';
import { clusterFromEnv } from './app';
import { eventually } from './eventually';

/**
 * A kafkajs client and admin on the test cluster for a suite of consumer tests, and the list of
 * consumers it starts: every one is stopped, and the admin disconnected, after the suite.
 *
 * `memberKafka()` is a client of its own for each member of a group that runs beside others of
 * the same group, as a process of its own has: kafkajs keeps a group's committed offsets in the
 * `Kafka` instance, shared by all its consumers, and a member whose new assignment lacks a topic
 * deletes it there, under a member of the same client still reading it (a TypeError inside
 * kafkajs, "Cannot read properties of undefined (reading '0')", in OffsetManager.resolveOffsets).
 */
export function consumerSuite(clientId: string): {
  kafka: Kafka;
  memberKafka: () => Kafka;
  admin: ReturnType<Kafka['admin']>;
  consumers: ConcurrentConsumer[];
} {
  const memberKafka = () => new Kafka({ clientId, brokers: clusterFromEnv().kafkaBrokers, logLevel: 0 });
  const kafka = memberKafka();
  const admin = kafka.admin();
  const consumers: ConcurrentConsumer[] = [];
  beforeAll(() => admin.connect());
  afterAll(async () => {
    await Promise.all(consumers.map((c) => c.stop()));
    await admin.disconnect();
  });
  return { kafka, memberKafka, admin, consumers };
}

/**
 * Crashes a kafkajs consumer as a bug inside kafkajs would: its next `times` fetches throw
 * `error()` from a FETCH_START listener (by default once, a TypeError: unrecoverable to kafkajs,
 * which then leaves the consumer stopped; enough retriable errors instead exhaust its retries, and
 * kafkajs restarts it). Resolves after the first crash, with its `restart` flag.
 */
export async function crashConsumer(
  consumer: Consumer,
  options: { times?: number; error?: () => Error } = {},
): Promise<boolean> {
  const { times = 1, error = () => new TypeError('a bug inside the fetch loop') } = options;
  const restarts: boolean[] = [];
  const unwatch = consumer.on(consumer.events.CRASH, ({ payload }) => void restarts.push(payload.restart));
  let left = times;
  const disarm = consumer.on(consumer.events.FETCH_START, () => {
    if (left <= 0) return;
    left--;
    throw error();
  });
  try {
    await eventually(() => restarts.length > 0 || undefined, { what: 'the crash', timeoutMs: 30_000 });
  } finally {
    disarm();
    unwatch();
  }
  return restarts[0]!;
}
