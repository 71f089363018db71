import { Kafka } from 'kafkajs';
import type { ConcurrentConsumer } from '../../src/kafka/consumer';
import { clusterFromEnv } from './app';

/**
 * A kafkajs client and admin on the test cluster for a suite of consumer tests, and the list of
 * consumers it starts: every one is stopped, and the admin disconnected, after the suite.
 */
export function consumerSuite(clientId: string): {
  kafka: Kafka;
  admin: ReturnType<Kafka['admin']>;
  consumers: ConcurrentConsumer[];
} {
  const kafka = new Kafka({ clientId, brokers: clusterFromEnv().kafkaBrokers, logLevel: 0 });
  const admin = kafka.admin();
  const consumers: ConcurrentConsumer[] = [];
  beforeAll(() => admin.connect());
  afterAll(async () => {
    await Promise.all(consumers.map((c) => c.stop()));
    await admin.disconnect();
  });
  return { kafka, admin, consumers };
}
