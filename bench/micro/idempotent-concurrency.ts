/**
 * Does an idempotent producer stay correct under concurrent send() calls (platformatic/kafka#326,
 * docs/adr/0001-kafka-client.md)? For @platformatic/kafka (the installed 2.x), called concurrently
 * and through a one-send-at-a-time queue (as a BatchingProducer in front of it would), and, as the
 * control that shows the check can pass, kafkajs as Hookline runs it (createKafka,
 * producerSettings), on the cluster `resolveCluster` finds or starts, each scenario on a fresh topic:
 *
 * - `issue-326`: 20 concurrent single-record sends to one partition (the issue's reproduction);
 * - `batching`: 4 concurrent callers, each sending 25 batches of 100 keyed records over 8
 *   partitions one after the other (as Hookline's BatchingProducer's callers do, without its
 *   one-request-at-a-time queue);
 * - `burst`: 200 concurrent single-record sends over 8 partitions.
 *
 * Every send's outcome is kept (acknowledged, or the protocol errors it failed with), then the
 * topic is read back with kafkajs and compared: records missing (acknowledged but not there),
 * duplicated, and out of order (a caller's records of one partition not in the order it sent
 * them). Exits 1 when any client shows an anomaly. Needs Node >= 22.22 (@platformatic/kafka 2.x).
 *
 *   npx tsx bench/micro/idempotent-concurrency.ts [rounds, default 3]
 *
 * PLATFORMATIC_KAFKA=<dir> checks the @platformatic/kafka installed under <dir> instead (e.g. 2.2.3,
 * the oldest 2.x the registry here serves: `npm install --prefix <dir> @platformatic/kafka@2.2.3`).
 */
// First: the kafkajs fork's preload, before anything loads kafkajs (createKafka fails otherwise).
import '../../src/kafka/kafkajs-fork/preload';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as Platformatic from '@platformatic/kafka';
import type { Kafka } from 'kafkajs';
import pino from 'pino';
import { createKafka, producerSettings } from '../../src/kafka/client';
import { createLogger } from '../../src/observability/logger';
import { resolveCluster } from '../../tools/devstack';
import { createReadyTopic, dropTopics } from '../lib/topics';

const PARTITIONS = 8;
const platformatic = loadPlatformatic(process.env.PLATFORMATIC_KAFKA ?? __dirname);

/** A record's identity: who sent it, and its place in that caller's sends. */
interface Sent {
  caller: number;
  seq: number;
  /** Where it goes; without one, its key's partition (the client's partitioner). */
  partition?: number;
  key?: string;
}
/** Sends `records` (each to its partition) in one call; resolves once acknowledged. */
type Send = (topic: string, records: Sent[]) => Promise<void>;
interface Scenario {
  name: string;
  partitions: number;
  /** Per caller, its sends in order; callers run concurrently, a caller's sends one at a time. */
  callers: Sent[][][];
}

interface Outcome {
  sends: number;
  failed: number;
  errors: Map<string, number>;
  /** The records of the sends that resolved. */
  acknowledged: Sent[];
  onTopic: number;
  missing: number;
  duplicated: number;
  outOfOrder: number;
}

function scenarios(): Scenario[] {
  const single = (callers: number, partitions: number): Sent[][][] =>
    Array.from({ length: callers }, (_, caller) => [[{ caller, seq: 0, partition: caller % partitions }]]);
  const batching = Array.from({ length: 4 }, (_, caller) =>
    Array.from({ length: 25 }, (_, batch) =>
      Array.from({ length: 100 }, (_, i) => {
        const seq = batch * 100 + i;
        return { caller, seq, key: `user-${caller}-${seq % 50}` };
      }),
    ),
  );
  return [
    { name: 'issue-326', partitions: 1, callers: single(20, 1) },
    { name: 'batching', partitions: PARTITIONS, callers: batching },
    { name: 'burst', partitions: PARTITIONS, callers: single(200, PARTITIONS) },
  ];
}

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 3);
  console.log(
    `@platformatic/kafka ${platformatic.version}, kafkajs ${kafkajsVersion()}, Node ${process.version}`,
  );
  const logger = createLogger({
    name: 'idempotent-concurrency',
    level: 'warn',
    destination: pino.destination(2),
  });
  const cluster = await resolveCluster({ logger, watchParentPid: process.pid });
  const brokers = cluster.kafkaBrokers;
  const kafka = createKafka({
    brokers,
    clientId: 'bench-idempotence',
    logger: createLogger({ level: 'error' }),
    patches: 'hookline-process',
  });
  const clients: Record<string, () => { send: Send; close: () => Promise<void> }> = {
    'kafkajs (Hookline)': () => kafkajsSender(kafka),
    '@platformatic/kafka': () => platformaticSender(brokers, false),
    'platformatic queued': () => platformaticSender(brokers, true),
  };
  const run = `${Date.now()}`;
  const topics: string[] = [];
  let anomalies = 0;
  try {
    for (let round = 0; round < rounds; round++) {
      for (const scenario of scenarios()) {
        for (const [name, make] of Object.entries(clients)) {
          const topic = `bench.idempotence.${run}.${round}.${scenario.name}.${name.replace(/[^a-z]/g, '')}`;
          topics.push(topic);
          await createReadyTopic(kafka, topic, scenario.partitions);
          const client = make();
          let outcome: Outcome;
          try {
            outcome = await play(client.send, topic, scenario);
          } finally {
            await client.close();
          }
          await readBack(kafka, topic, outcome);
          const bad = outcome.failed + outcome.missing + outcome.duplicated + outcome.outOfOrder;
          anomalies += bad;
          console.log(
            `round ${round + 1} ${scenario.name.padEnd(9)} ${name.padEnd(19)} ${describe(outcome)}`,
          );
        }
      }
    }
  } finally {
    await dropTopics(kafka, topics);
    await cluster.stop();
  }
  console.log(
    anomalies === 0
      ? '\nno anomaly'
      : `\n${anomalies} anomalies (failed sends, missing, duplicated or reordered records)`,
  );
  process.exitCode = anomalies === 0 ? 0 : 1;
}

async function play(send: Send, topic: string, scenario: Scenario): Promise<Outcome> {
  const outcome: Outcome = {
    sends: 0,
    failed: 0,
    errors: new Map(),
    acknowledged: [],
    onTopic: 0,
    missing: 0,
    duplicated: 0,
    outOfOrder: 0,
  };
  await Promise.all(
    scenario.callers.map(async (sends) => {
      for (const records of sends) {
        outcome.sends++;
        try {
          await send(topic, records);
          outcome.acknowledged.push(...records);
        } catch (err) {
          outcome.failed++;
          const key = errorCodes(err).join('+') || (err as Error).message;
          outcome.errors.set(key, (outcome.errors.get(key) ?? 0) + 1);
        }
      }
    }),
  );
  return outcome;
}

/** Reads the topic to its end and counts what is missing, duplicated or out of order. */
async function readBack(kafka: Kafka, topic: string, outcome: Outcome): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  const ends = new Map(
    (await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, Number(p.high)] as const),
  );
  await admin.disconnect();
  const seen = new Map<string, number>();
  const lastSeq = new Map<string, number>(); // `${caller}:${partition}` → last seq read
  const consumer = kafka.consumer({ groupId: `${topic}.check`, maxWaitTimeInMs: 100 });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    const remaining = new Set([...ends].filter(([, high]) => high > 0).map(([p]) => p));
    await new Promise<void>((resolve, reject) => {
      if (remaining.size === 0) resolve();
      consumer
        .run({
          eachMessage: async ({ partition, message }) => {
            const sent = JSON.parse(message.value!.toString()) as Sent;
            const id = `${sent.caller}:${sent.seq}`;
            seen.set(id, (seen.get(id) ?? 0) + 1);
            const lane = `${sent.caller}:${partition}`;
            if ((lastSeq.get(lane) ?? -1) >= sent.seq) outcome.outOfOrder++;
            lastSeq.set(lane, sent.seq);
            if (Number(message.offset) + 1 >= ends.get(partition)!) remaining.delete(partition);
            if (remaining.size === 0) resolve();
          },
        })
        .catch(reject);
    });
  } finally {
    await consumer.disconnect();
  }
  outcome.onTopic = [...seen.values()].reduce((a, b) => a + b, 0);
  outcome.duplicated = [...seen.values()].reduce((a, n) => a + n - 1, 0);
  outcome.missing = outcome.acknowledged.filter((s) => !seen.has(`${s.caller}:${s.seq}`)).length;
}

function kafkajsSender(kafka: Kafka): { send: Send; close: () => Promise<void> } {
  const producer = kafka.producer(producerSettings());
  const connected = producer.connect();
  return {
    send: async (topic, records) => {
      await connected;
      await producer.send({
        topic,
        acks: -1,
        messages: records.map((r) => ({ partition: r.partition, key: r.key, value: JSON.stringify(r) })),
      });
    },
    close: () => producer.disconnect(),
  };
}

/** `queued`: one send at a time, in call order (what a BatchingProducer in front of it would do). */
function platformaticSender(brokers: string[], queued: boolean): { send: Send; close: () => Promise<void> } {
  const producer = new platformatic.module.Producer({
    clientId: 'bench-idempotence',
    bootstrapBrokers: brokers,
    idempotent: true,
    acks: platformatic.module.ProduceAcks.ALL,
  });
  const send: Send = async (topic, records) => {
    await producer.send({
      messages: records.map((r) => ({
        topic,
        partition: r.partition,
        key: r.key === undefined ? undefined : Buffer.from(r.key),
        value: Buffer.from(JSON.stringify(r)),
      })),
    });
  };
  let previous: Promise<unknown> = Promise.resolve();
  return {
    send: queued
      ? (topic, records) => {
          const next = previous.then(() => send(topic, records));
          previous = next.catch(() => undefined);
          return next;
        }
      : send,
    close: () => producer.close(),
  };
}

function kafkajsVersion(): string {
  return (createRequire(__filename)('kafkajs/package.json') as { version: string }).version;
}

/** The @platformatic/kafka that `dir` resolves (its own node_modules, or its parents'), and its version. */
function loadPlatformatic(dir: string): { module: typeof Platformatic; version: string } {
  const requireThere = createRequire(path.join(path.resolve(dir), 'index.js'));
  const entry = requireThere.resolve('@platformatic/kafka');
  let packageDir = path.dirname(entry);
  while (!readPackage(packageDir)) packageDir = path.dirname(packageDir);
  return { module: requireThere(entry) as typeof Platformatic, version: readPackage(packageDir)!.version };
}

function readPackage(dir: string): { version: string } | undefined {
  try {
    const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
      name?: string;
      version: string;
    };
    return pkg.name === '@platformatic/kafka' ? pkg : undefined;
  } catch {
    return undefined;
  }
}

/** The Kafka error names (`apiId`) anywhere in an error, its `errors` and its causes. */
function errorCodes(err: unknown, found: string[] = []): string[] {
  if (typeof err !== 'object' || err === null) return found;
  const e = err as { apiId?: unknown; errors?: unknown; cause?: unknown; type?: unknown };
  const code = typeof e.apiId === 'string' ? e.apiId : typeof e.type === 'string' ? e.type : undefined;
  if (code && !found.includes(code)) found.push(code);
  if (Array.isArray(e.errors)) for (const inner of e.errors) errorCodes(inner, found);
  errorCodes(e.cause, found);
  return found;
}

function describe(o: Outcome): string {
  const errors = [...o.errors].map(([code, n]) => `${n}× ${code}`).join(', ');
  return (
    `sends ${o.sends} failed ${o.failed}${errors ? ` (${errors})` : ''}; records acked ${o.acknowledged.length}, ` +
    `on topic ${o.onTopic}, missing ${o.missing}, duplicated ${o.duplicated}, out of order ${o.outOfOrder}`
  );
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
