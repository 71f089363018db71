import { randomBytes } from 'node:crypto';
import type { Consumer } from 'kafkajs';
import type { HooklineEvent } from '../../../src/events/types';
import type { TestApp } from '../app';
import { eventually } from '../eventually';

/** One record read back from a topic of the test app. */
export interface StoredRecord<T> {
  partition: number;
  offset: number;
  key: string | null;
  value: T;
}

/** io.hookline.ingest.RejectedEvent as avsc decodes it. */
export interface StoredRejection {
  sourceId: string;
  /** Epoch ms (the codec registers no logical types). */
  receivedAt: number;
  path: string;
  index: number;
  messageId: string | null;
  code: string;
  reason: string;
  payload: string;
}

export interface StoredEvents {
  /** Everything read from `<prefix>.events` so far, decoded with the app's EventCodec. */
  events: StoredRecord<HooklineEvent>[];
  /** Everything read from `<prefix>.ingest-dlq` so far. */
  rejected: StoredRecord<StoredRejection>[];
  /** Waits until every record now on both topics has been read (and decoded). */
  catchUp(): Promise<void>;
  /** Sum of the high watermarks of both topics: grows by one per record written. */
  recordCount(): Promise<{ events: number; rejected: number }>;
  stop(): Promise<void>;
}

/**
 * Reads the tracking API's output topics of a test app from the beginning, with a kafkajs
 * consumer of its own group, decoding as the app does. Start it once per app; filter by the
 * ids a test used.
 */
export async function readStoredEvents(testApp: TestApp): Promise<StoredEvents> {
  const { kafka, topics, events: codec, avro, admin } = testApp.app.parts;
  const consumer: Consumer = kafka.consumer({
    groupId: `${testApp.prefix}-reader-${randomBytes(4).toString('hex')}`,
    maxWaitTimeInMs: 100,
    allowAutoTopicCreation: false,
  });
  const events: StoredRecord<HooklineEvent>[] = [];
  const rejected: StoredRecord<StoredRejection>[] = [];
  const decodeErrors: string[] = [];
  /** Highest offset read per `topic:partition`. */
  const read = new Map<string, number>();

  await consumer.connect();
  await consumer.subscribe({ topics: [topics.events, topics.ingestDlq], fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ topic, partition, message }) => {
      const offset = Number(message.offset);
      const key = message.key?.toString('utf8') ?? null;
      try {
        if (!message.value) throw new Error('null value');
        if (topic === topics.events) {
          events.push({ partition, offset, key, value: await codec.decode(message.value) });
        } else {
          const decoded = await avro.decode(message.value);
          if (decoded.name !== 'io.hookline.ingest.RejectedEvent')
            throw new Error(`unexpected record ${decoded.name}`);
          rejected.push({ partition, offset, key, value: decoded.value as unknown as StoredRejection });
        }
      } catch (err) {
        decodeErrors.push(`${topic}/${partition}@${offset}: ${(err as Error).message}`);
      }
      read.set(`${topic}:${partition}`, offset);
    },
  });

  const highWatermarks = async (topic: string) =>
    (await admin.fetchTopicOffsets(topic)).map((p) => ({ partition: p.partition, high: Number(p.high) }));

  return {
    events,
    rejected,
    async catchUp() {
      const targets = (
        await Promise.all(
          [topics.events, topics.ingestDlq].map(async (topic) =>
            (await highWatermarks(topic)).map((p) => ({ topic, ...p })),
          ),
        )
      ).flat();
      await eventually(
        () =>
          targets.every((t) => t.high === 0 || (read.get(`${t.topic}:${t.partition}`) ?? -1) >= t.high - 1),
        { what: 'the reader to catch up with the events and ingest-dlq topics' },
      );
      if (decodeErrors.length > 0) throw new Error(`undecodable records: ${decodeErrors.join('; ')}`);
    },
    async recordCount() {
      const sum = async (topic: string) => (await highWatermarks(topic)).reduce((n, p) => n + p.high, 0);
      return { events: await sum(topics.events), rejected: await sum(topics.ingestDlq) };
    },
    stop: () => consumer.disconnect(),
  };
}
