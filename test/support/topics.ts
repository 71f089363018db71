import type { TestApp } from './app';
import { eventually } from './eventually';

/** Every record value on a topic right now, read from the beginning with a throwaway group. */
export async function readTopic(t: TestApp, topic: string): Promise<Buffer[]> {
  const { admin, kafka } = t.app.parts;
  const offsets = await admin.fetchTopicOffsets(topic);
  const total = offsets.reduce((n, p) => n + Number(p.high) - Number(p.low), 0);
  if (total === 0) return [];
  const consumer = kafka.consumer({
    groupId: `reader-${Math.random().toString(36).slice(2)}`,
    maxWaitTimeInMs: 100,
  });
  const values: Buffer[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => void (message.value && values.push(message.value)),
    });
    await eventually(() => values.length >= total || undefined, {
      what: `${total} records of ${topic}`,
      timeoutMs: 15_000,
    });
  } finally {
    await consumer.disconnect();
  }
  return values;
}
