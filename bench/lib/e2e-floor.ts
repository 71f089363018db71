import { createServer, Agent, type IncomingMessage, type Server } from 'node:http';
import type { Consumer, Kafka, Producer } from 'kafkajs';
import { MAX_REQUEST_BYTES } from '../../src/events/normalize';
import { readBody } from '../../src/http/respond';
import { BENCH_PARTITIONS } from './app';
import { post } from './http-load';
import { listenOnLoopback } from './loopback-server';
import { createReadyTopic } from './topics';

/**
 * The end-to-end floor: the least a Kafka-backed webhook relay does per event, run in the bench
 * process (where Hookline runs) with the raw baselines' clients, so that `e2e` can say how much of
 * the raw ceiling any such relay reaches on this machine, before Hookline's own work.
 *
 * - In: node:http reads each batch request whole, JSON.parse, and writes each event's JSON text
 *   (JSON.stringify of the parsed event, keyed by its userId) with one sendBatch of the raw
 *   producer; 200 once Kafka acknowledged them.
 * - Out: one consumer group reads the topic (8 partitions at once, as the raw consume) and POSTs
 *   each record's value, as it is, to the receiver (node:http keep-alive, at most `concurrency`
 *   requests in flight, as the raw POST baseline); kafkajs commits a batch once all its POSTs
 *   answered.
 *
 * No validation, Avro, schema registry, signature, attempt record, retry, ordering or isolation.
 */
export interface E2eFloor {
  /** Takes `/v1/batch` requests (any path) as the tracking API does. */
  baseUrl: string;
  /** POSTs that did not get a 2xx (the receivers answer 200). */
  readonly failedPosts: number;
  stop(): Promise<void>;
}

export interface E2eFloorOptions {
  kafka: Kafka;
  producer: Producer;
  /** Names its topic `<prefix>.floor-events` and its group `<prefix>.floor-relay`. */
  prefix: string;
  /** The receiver. */
  url: string;
  /** Requests in flight at most (the worker's per-destination concurrency). */
  concurrency: number;
}

export async function startE2eFloor(options: E2eFloorOptions): Promise<E2eFloor> {
  const { kafka, producer, prefix, url } = options;
  const topic = `${prefix}.floor-events`;
  await createReadyTopic(kafka, topic, BENCH_PARTITIONS);
  let failedPosts = 0;
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  const consumer: Consumer = kafka.consumer({
    groupId: `${prefix}.floor-relay`,
    maxWaitTimeInMs: 100,
    allowAutoTopicCreation: false,
  });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    partitionsConsumedConcurrently: 8,
    eachBatch: async ({ batch }) => {
      const outcomes = await Promise.all(
        batch.messages.map((m) => post(agent, url, m.value ? m.value.toString('utf8') : '{}')),
      );
      for (const o of outcomes) if (o.status < 200 || o.status >= 300) failedPosts++;
    },
  });

  const server: Server = createServer({ keepAlive: true }, (req, res) => {
    relayIn(req, producer, topic).then(
      () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true}'),
      (err: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(err.message),
    );
  });
  const listening = await listenOnLoopback(server);
  return {
    baseUrl: listening.url,
    get failedPosts() {
      return failedPosts;
    },
    stop: async () => {
      await listening.close();
      await consumer.disconnect();
      agent.destroy();
    },
  };
}

async function relayIn(req: IncomingMessage, producer: Producer, topic: string): Promise<void> {
  const text = (await readBody(req, MAX_REQUEST_BYTES)).toString('utf8');
  const body = JSON.parse(text) as { batch?: Record<string, unknown>[] };
  const messages = (body.batch ?? []).map((event) => ({
    key: typeof event.userId === 'string' ? event.userId : null,
    value: JSON.stringify(event),
  }));
  await producer.sendBatch({ topicMessages: [{ topic, messages }], acks: -1 });
}
