import { decodeHoles } from '../../src/kafka/commit-holes';
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

/**
 * Records of a topic a group has not committed as done: those past its committed offset plus the
 * holes below it (records still in flight, see src/kafka/commit-holes.ts). 0: all handed on.
 */
/**
 * Events whose first attempts are not all handed on yet. By default (HOOKLINE_DIRECT_DELIVERY)
 * the router makes them, and commits an event once each of its tasks was delivered or handed to
 * a delay or dead-letter topic; hookline.deliveries then carries only rate-limited destinations'
 * tasks, redrives and replays.
 */
export function unfinishedEvents(t: TestApp): Promise<number> {
  return uncommittedRecords(t, `${t.prefix}.router`, `${t.prefix}.events`);
}

export async function uncommittedRecords(t: TestApp, groupId: string, topic: string): Promise<number> {
  const { admin } = t.app.parts;
  const [ends, [entry]] = await Promise.all([
    admin.fetchTopicOffsets(topic),
    admin.fetchOffsets({ groupId, topics: [topic] }),
  ]);
  return ends.reduce((n, p) => {
    const c = entry?.partitions.find((x) => x.partition === p.partition);
    const offset = Math.max(0, Number(c?.offset ?? 0));
    return n + Number(p.high) - offset + decodeHoles(offset, c?.metadata).length;
  }, 0);
}
