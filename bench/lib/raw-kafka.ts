import { performance } from 'node:perf_hooks';
import type { Kafka, Producer } from 'kafkajs';
import { createKafka } from '../../src/kafka/client';
import { createLogger } from '../../src/observability/logger';
import type { EncodedRecord } from './events';
import type { BenchContext } from './scenario';
import { cpuMsSince } from './stats';

/**
 * The raw-kafkajs baselines: the same client settings Hookline uses (src/kafka/client.ts), the
 * same producer options (src/roles.ts: idempotent, one request in flight, acks=-1). The kafkajs
 * they run is the one Hookline runs: `createKafka` applies Hookline's process-wide changes to kafkajs
 * (`applyKafkajsFixes`: its request-queue timer, its Produce encoder, its Fetch decoder), as
 * `bench/run.ts` does before the first scenario, whose first import also puts Hookline's linear
 * grouping of messages by partition in place (src/kafka/kafkajs-fork/group-messages.ts). Nothing else of
 * Hookline's is on the path: the producer keeps kafkajs's default
 * partitioner (murmur2 on kafkajs's Long; Hookline's own puts keys on the same partitions with
 * less CPU, ~16% of the raw producer's busy samples at batches of 100).
 */

export function benchKafka(ctx: BenchContext, clientId: string): Kafka {
  return createKafka({
    brokers: ctx.cluster.kafkaBrokers,
    clientId,
    patches: 'hookline-process',
    logger: createLogger({ level: 'error' }),
  });
}

export async function rawProducer(kafka: Kafka): Promise<Producer> {
  const producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
  });
  await producer.connect();
  return producer;
}

export interface Throughput {
  count: number;
  elapsedMs: number;
  /** CPU of this process meanwhile. */
  cpuMs: number;
}

/**
 * `concurrency` loops, each calling sendBatch with the next `batchSize` records as soon as its
 * previous one was acknowledged: what the tracking API does for `concurrency` clients sending
 * `batchSize` events a call.
 */
export async function produceClosedLoop(options: {
  producer: Producer;
  topic: string;
  records: EncodedRecord[];
  batchSize: number;
  concurrency: number;
}): Promise<Throughput> {
  const { producer, topic, records, batchSize } = options;
  let next = 0;
  const startedAt = performance.now();
  const cpu = process.cpuUsage();
  const loop = async () => {
    while (next < records.length) {
      const messages = records.slice(next, (next += batchSize));
      await producer.sendBatch({ topicMessages: [{ topic, messages }], acks: -1 });
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, loop));
  return { count: records.length, elapsedMs: performance.now() - startedAt, cpuMs: cpuMsSince(cpu) };
}

/**
 * Reads a topic from the beginning with a new consumer group until `expected` messages arrived.
 * Timed from the moment the group was joined (joining is not part of the throughput; finding
 * the offsets and fetching are).
 */
export async function consumeAll(options: {
  kafka: Kafka;
  topic: string;
  groupId: string;
  expected: number;
  timeoutMs: number;
}): Promise<Throughput & { complete: boolean }> {
  const consumer = options.kafka.consumer({
    groupId: options.groupId,
    maxWaitTimeInMs: 100,
    allowAutoTopicCreation: false,
  });
  await consumer.connect();
  let count = 0;
  let joinedAt: number | undefined;
  let cpu: NodeJS.CpuUsage | undefined;
  consumer.on(consumer.events.GROUP_JOIN, () => {
    joinedAt ??= performance.now();
    cpu ??= process.cpuUsage();
  });
  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  try {
    await consumer.subscribe({ topics: [options.topic], fromBeginning: true });
    await consumer.run({
      partitionsConsumedConcurrently: 8,
      eachBatch: async ({ batch }) => {
        count += batch.messages.length;
        if (count >= options.expected) finish();
      },
    });
    const timer = setTimeout(finish, options.timeoutMs);
    await finished;
    clearTimeout(timer);
    const elapsedMs = joinedAt === undefined ? 0 : performance.now() - joinedAt;
    return { count, elapsedMs, cpuMs: cpu ? cpuMsSince(cpu) : 0, complete: count >= options.expected };
  } finally {
    await consumer.disconnect();
  }
}

/**
 * Produce→consume latency at a fixed rate: a consumer group reads the topic while a producer
 * writes `batchSize` records every batchSize/rate seconds, each stamped with its send time.
 * Records sent in the first `warmUpMs` (group join, offset look-up, JIT) are not measured;
 * records not consumed 10 s after the last send count as infinitely late.
 */
export async function produceConsumeLatency(options: {
  kafka: Kafka;
  producer: Producer;
  topic: string;
  groupId: string;
  record: EncodedRecord;
  eventsPerSecond: number;
  batchSize: number;
  warmUpMs: number;
  durationMs: number;
}): Promise<number[]> {
  const { producer, topic, record, batchSize } = options;
  const consumer = options.kafka.consumer({
    groupId: options.groupId,
    maxWaitTimeInMs: 100,
    allowAutoTopicCreation: false,
  });
  await consumer.connect();
  const latencies: number[] = [];
  let measureFrom = Number.POSITIVE_INFINITY;
  let received = 0;
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      partitionsConsumedConcurrently: 8,
      eachBatch: async ({ batch }) => {
        const now = performance.now();
        for (const m of batch.messages) {
          received++;
          const sentAt = Number(m.headers?.sentAt?.toString());
          if (sentAt >= measureFrom) latencies.push(now - sentAt);
        }
      },
    });
    const intervalMs = (1_000 * batchSize) / options.eventsPerSecond;
    const ticks = Math.floor((options.warmUpMs + options.durationMs) / intervalMs);
    const startedAt = performance.now();
    measureFrom = startedAt + options.warmUpMs;
    const sends: Promise<unknown>[] = [];
    let measuredSent = 0;
    for (let i = 0; i < ticks; i++) {
      const waitMs = startedAt + i * intervalMs - performance.now();
      if (waitMs > 0) await new Promise((r) => setTimeout(r, waitMs));
      const now = performance.now();
      if (now >= measureFrom) measuredSent += batchSize;
      const sentAt = String(now);
      const messages = Array.from({ length: batchSize }, (_, k) => ({
        key: `user-${(i * batchSize + k) % 1_000}`,
        value: record.value,
        headers: { sentAt },
      }));
      sends.push(producer.sendBatch({ topicMessages: [{ topic, messages }], acks: -1 }));
    }
    await Promise.all(sends);
    const expected = ticks * batchSize;
    const deadline = performance.now() + 10_000;
    while (received < expected && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    // A record not consumed by the deadline counts as infinitely late.
    return [
      ...latencies,
      ...Array<number>(Math.max(0, measuredSent - latencies.length)).fill(Number.POSITIVE_INFINITY),
    ];
  } finally {
    await consumer.disconnect();
  }
}
