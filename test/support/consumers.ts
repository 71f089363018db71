import { Kafka } from 'kafkajs';
import type { ConcurrentConsumer } from '../../src/kafka/consumer';
import { clusterFromEnv } from './app';

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
