import { applyKafkajsFixes } from '../../src/kafka/kafkajs-fork';
import { Kafka, logLevel } from '../../src/kafka/kafkajs';
import { clusterFromEnv, uniquePrefix } from '../support/app';

/**
 * One admin client, shared as Hookline's processes share it, reading committed and log offsets of
 * topics new to it while others read topic metadata: at a fresh start, the retry consumer's first
 * takeovers and the audiences' metadata reads. kafkajs 2.2.4 lost topics from the client's metadata
 * cache meanwhile and fetchTopicOffsets threw `Cannot destructure property 'partitions' of
 * 'high.pop(...)'` (kafkajs-fork/metadata-refresh.ts); on kafkajs without the patch this test saw
 * that TypeError in about half of its runs.
 */
test('offsets of topics new to a shared admin are read while others read metadata, without a TypeError', async () => {
  applyKafkajsFixes();
  const kafka = new Kafka({
    clientId: 'admin-metadata',
    brokers: clusterFromEnv().kafkaBrokers,
    logLevel: logLevel.NOTHING,
  });
  const setup = kafka.admin();
  await setup.connect();
  const prefix = uniquePrefix();
  const read = Array.from({ length: 10 }, (_, i) => `${prefix}.read${i}`);
  const described = Array.from({ length: 10 }, (_, i) => `${prefix}.described${i}`);
  await setup.createTopics({ topics: [...read, ...described].map((topic) => ({ topic, numPartitions: 3 })) });
  const failures: string[] = [];
  const pause = () => new Promise((resolve) => setTimeout(resolve, Math.random() * 50));
  const describeOne = () => described[Math.floor(Math.random() * described.length)];
  try {
    for (let round = 0; round < 8; round++) {
      const admin = kafka.admin();
      await admin.connect();
      await Promise.all([
        ...read.flatMap((topic) =>
          [0, 1, 2].map(async () => {
            await pause();
            await admin.fetchTopicMetadata({ topics: [describeOne()] }).catch(() => undefined);
            try {
              await admin.fetchOffsets({ groupId: `${prefix}.group`, topics: [topic] });
              await admin.fetchTopicOffsets(topic);
            } catch (err) {
              // A leader that moved just after the topics' creation is kafkajs's to retry, not this test's.
              if (err instanceof TypeError) failures.push(err.message);
            }
          }),
        ),
        ...described.map(async (topic) => {
          await pause();
          await admin.fetchTopicMetadata({ topics: [topic] }).catch(() => undefined);
        }),
      ]);
      await admin.disconnect();
    }
    expect(failures).toEqual([]);
  } finally {
    await setup.deleteTopics({ topics: [...read, ...described] }).catch(() => undefined);
    await setup.disconnect();
  }
});
