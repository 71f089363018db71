/**
 * Micro-benchmark of the Kafka client (issues 16 and 40, docs/adr/0001-kafka-client.md): kafkajs
 * 2.2.4 as Hookline runs it (createKafka, with its changes: the baseline), the same kafkajs as
 * published (no changes: what they buy) and @platformatic/kafka 2.x (pure JS), side by side in one
 * process, interleaved rounds, on the cluster `resolveCluster` finds or starts. Each round opens
 * its client and closes it, so that no client's idle connections run during another's round.
 * @confluentinc/kafka-javascript is not measured: it does not install here (the ADR says why).
 *
 * - produce: `records` ~600-byte keyed records to a fresh 8-partition topic, idempotent, acks=-1,
 *   batches of 100 from 4 concurrent callers (as Hookline's BatchingProducer has). Every client
 *   sends one request at a time: kafkajs by maxInFlightRequests 1 (Hookline's setting), and
 *   @platformatic/kafka through a queue here, as Hookline's BatchingProducer would drive it
 *   (concurrent send() on its idempotent producer: bench/micro/idempotent-concurrency.ts);
 * - consume: the same topic with a new consumer group from the beginning, timed from the first
 *   group join to the last record (joining is not part of the throughput).
 * Prints records/s and CPU µs per record of this process, and ratios per repetition to Hookline's
 * kafkajs. Needs Node >= 22.22 (@platformatic/kafka 2.x).
 *
 *   npx tsx bench/micro/kafka-clients.ts [records per round, default 50000] [repetitions, default 3]
 */
// First: kafkajs as published, loaded before Hookline's modules load (and patch) their own copy.
import { assertSeparateCopy, plainKafkajs } from './plain-kafkajs';
// Then Hookline's preload, before its copy of kafkajs loads (createKafka fails when it came too late).
import '../../src/kafka/kafkajs-fork/preload';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Consumer as PltConsumer, Producer as PltProducer } from '@platformatic/kafka';
import type { Kafka } from 'kafkajs';
import pino from 'pino';
import { createKafka } from '../../src/kafka/client';
import * as patchedKafkajs from '../../src/kafka/kafkajs';
import { createLogger } from '../../src/observability/logger';
import { resolveCluster } from '../../tools/devstack';
import { median } from '../lib/stats';
import { createReadyTopic, dropTopics } from '../lib/topics';

const BATCH = 100;
const IN_FLIGHT = 4;
const PARTITIONS = 8;
const BASELINE = 'kafkajs (Hookline)';

interface Record600 {
  key: Buffer;
  value: Buffer;
}
interface Figures {
  recordsPerS: number;
  cpuUs: number;
}
/** One round's client: produce, then consume, then close. */
interface Client {
  produce(topic: string, records: Record600[]): Promise<void>;
  consume(topic: string, groupId: string, expected: number): Promise<Figures>;
  close(): Promise<void>;
}

async function main(): Promise<void> {
  const count = Number(process.argv[2] ?? 50_000);
  const repetitions = Number(process.argv[3] ?? 3);
  process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';
  assertSeparateCopy(patchedKafkajs);
  const logger = createLogger({ name: 'kafka-clients', level: 'warn', destination: pino.destination(2) });
  const cluster = await resolveCluster({ logger, watchParentPid: process.pid });
  const brokers = cluster.kafkaBrokers;
  const kafka = createKafka({
    brokers,
    clientId: 'bench-kafkajs',
    logger: createLogger({ level: 'error' }),
    patches: 'hookline-process',
  });
  const plain = new plainKafkajs.Kafka({
    brokers,
    clientId: 'bench-kafkajs-plain',
    logLevel: plainKafkajs.logLevel.ERROR,
  });
  const records = Array.from({ length: count }, (_, i) => ({
    key: Buffer.from(`user-${i % 1_000}`),
    value: Buffer.from(randomBytes(300).toString('hex')), // 600 bytes
  }));
  const clients: Record<string, () => Client> = {
    [BASELINE]: () => kafkajsClient(kafka),
    'kafkajs (published)': () => kafkajsClient(plain),
    '@platformatic/kafka': () => platformaticClient(brokers),
  };
  const rows: Record<string, Record<'produce' | 'consume', Figures[]>> = {};
  const run = `${Date.now()}`;
  const topics: string[] = [];
  try {
    for (let rep = 0; rep < repetitions; rep++) {
      for (const [name, make] of Object.entries(clients)) {
        const topic = `bench.kafka-clients.${run}.${rep}.${name.replace(/[^a-z]/g, '')}`;
        topics.push(topic);
        await createReadyTopic(kafka, topic, PARTITIONS);
        const client = make();
        try {
          await client.produce(topic, records.slice(0, 2_000)); // warm-up: connections, metadata, JIT
          const produced = await timed(count, () => client.produce(topic, records));
          const consumed = await client.consume(topic, `${topic}.group`, count + 2_000);
          const row = (rows[name] ??= { produce: [], consume: [] });
          row.produce.push(produced);
          row.consume.push(consumed);
          console.log(
            `rep ${rep + 1} ${name.padEnd(19)} produce ${line(produced)}   consume ${line(consumed)}`,
          );
        } finally {
          await client.close();
        }
      }
    }
    report(rows);
  } finally {
    await dropTopics(kafka, topics);
    await cluster.stop();
  }
}

async function timed(count: number, fn: () => Promise<void>): Promise<Figures> {
  const cpu = process.cpuUsage();
  const startedAt = performance.now();
  await fn();
  return figures(count, startedAt, cpu);
}

function figures(count: number, startedAt: number, cpu: NodeJS.CpuUsage): Figures {
  const used = process.cpuUsage(cpu);
  return {
    recordsPerS: count / ((performance.now() - startedAt) / 1_000),
    cpuUs: (used.user + used.system) / count,
  };
}

/** `IN_FLIGHT` loops, each sending the next batch of `BATCH` records once its previous one was acknowledged. */
async function closedLoop(
  records: Record600[],
  send: (batch: Record600[]) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const loop = async () => {
    while (next < records.length) await send(records.slice(next, (next += BATCH)));
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, loop));
}

/** Counts records until `expected`; the clock and the CPU meter start when the group is joined. */
function counter(expected: number) {
  let seen = 0;
  let startedAt = performance.now();
  let cpu = process.cpuUsage();
  let joined = false;
  let done: (f: Figures) => void = () => undefined;
  const finished = new Promise<Figures>((resolve) => (done = resolve));
  const start = () => {
    if (joined) return;
    joined = true;
    startedAt = performance.now();
    cpu = process.cpuUsage();
  };
  const add = (n: number) => {
    seen += n;
    if (seen >= expected) done(figures(seen, startedAt, cpu));
  };
  return { start, add, finished };
}

function kafkajsClient(kafka: Kafka): Client {
  // The settings of every Hookline producer (src/kafka/client.ts): idempotent, one request in flight.
  const producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
  });
  const connected = producer.connect();
  return {
    async produce(topic, records) {
      await connected;
      await closedLoop(records, (messages) =>
        producer.sendBatch({ topicMessages: [{ topic, messages }], acks: -1 }),
      );
    },
    async consume(topic, groupId, expected) {
      const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 100, allowAutoTopicCreation: false });
      const count = counter(expected);
      consumer.on(consumer.events.GROUP_JOIN, count.start);
      await consumer.connect();
      try {
        await consumer.subscribe({ topics: [topic], fromBeginning: true });
        await consumer.run({
          partitionsConsumedConcurrently: PARTITIONS,
          eachBatch: async ({ batch }) => count.add(batch.messages.length),
        });
        return await count.finished;
      } finally {
        await consumer.disconnect();
      }
    },
    close: () => producer.disconnect(),
  };
}

function platformaticClient(brokers: string[]): Client {
  const producer = new PltProducer({
    clientId: 'bench-platformatic',
    bootstrapBrokers: brokers,
    idempotent: true,
    acks: -1,
  });
  let previous: Promise<unknown> = Promise.resolve();
  return {
    async produce(topic, records) {
      await closedLoop(records, (batch) => {
        const messages = batch.map((r) => ({ topic, key: r.key, value: r.value }));
        previous = previous.then(() => producer.send({ messages }));
        return previous;
      });
    },
    async consume(topic, groupId, expected) {
      const consumer = new PltConsumer({
        clientId: 'bench-platformatic',
        groupId,
        bootstrapBrokers: brokers,
        maxWaitTime: 100,
      });
      const count = counter(expected);
      consumer.on('consumer:group:join', count.start);
      try {
        const stream = await consumer.consume({ topics: [topic], mode: 'earliest', autocommit: true });
        stream.on('data', () => count.add(1));
        const result = await count.finished;
        await stream.close();
        return result;
      } finally {
        await consumer.close(true);
      }
    },
    close: () => producer.close(),
  };
}

function line(f: Figures): string {
  return `${f.recordsPerS.toFixed(0).padStart(6)} rec/s ${f.cpuUs.toFixed(1).padStart(5)} µs CPU/rec`;
}

function report(rows: Record<string, Record<'produce' | 'consume', Figures[]>>): void {
  const base = rows[BASELINE]!;
  console.log(
    `\nmedian over repetitions; ratio = per repetition to ${BASELINE} of the same repetition, median`,
  );
  for (const path of ['produce', 'consume'] as const) {
    for (const [name, row] of Object.entries(rows)) {
      const series = row[path];
      const rates = series.map((f, i) => f.recordsPerS / base[path][i]!.recordsPerS);
      const cpus = series.map((f, i) => f.cpuUs / base[path][i]!.cpuUs);
      console.log(
        `${path} ${name.padEnd(19)} ${median(series.map((f) => f.recordsPerS))
          .toFixed(0)
          .padStart(6)} rec/s (×${median(rates).toFixed(2)}, ${range(rates)})  ` +
          `${median(series.map((f) => f.cpuUs))
            .toFixed(1)
            .padStart(5)} µs CPU/rec (×${median(cpus).toFixed(2)}, ${range(cpus)})`,
      );
    }
  }
}

function range(values: number[]): string {
  return `${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}`;
}

void main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
