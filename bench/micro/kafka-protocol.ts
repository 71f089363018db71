/**
 * Micro-benchmark of Hookline's replacements of kafkajs 2.2.4's protocol code (issue 16), no
 * Kafka: CPU µs per record of kafkajs's Produce v3 encoder against `encodeProduceRequest`, and of
 * kafkajs's Fetch v11 decoder against `decodeFetchResponse`, on requests and responses of 1, 14
 * and 100 records (a fetch at low latency carries a few records; a busy one, many). Rounds
 * interleaved (kafkajs, Hookline, ...), the last of 3 printed.
 *
 *   npx tsx bench/micro/kafka-protocol.ts [records per round, default 300000]
 */
import { createRequire } from 'node:module';
import { crc32c } from '../../src/kafka/kafkajs-fork/crc32c';
import { decodeFetchResponse } from '../../src/kafka/kafkajs-fork/fetch-response';
import { encodeProduceRequest, type ProduceRequestArgs } from '../../src/kafka/kafkajs-fork/produce-request';

const requireKafkajs = createRequire(__filename);
/* eslint-disable @typescript-eslint/no-explicit-any -- kafkajs's internals are untyped */
const Encoder = requireKafkajs('kafkajs/src/protocol/encoder') as any;
const { RecordBatch } = requireKafkajs('kafkajs/src/protocol/recordBatch/v0') as any;
const Record = requireKafkajs('kafkajs/src/protocol/recordBatch/record/v0') as any;
const Long = requireKafkajs('kafkajs/src/utils/long') as any;
const fetchV11 = requireKafkajs('kafkajs/src/protocol/requests/fetch/v11/response') as any;
const produceV3 = requireKafkajs('kafkajs/src/protocol/requests/produce/v3/request') as any;
/* eslint-enable @typescript-eslint/no-explicit-any */

const recordsPerRound = Number(process.argv[2] ?? 300_000);
const SHAPES = [
  { count: 1, valueBytes: 600 },
  { count: 14, valueBytes: 300 },
  { count: 100, valueBytes: 600 },
];

async function cpuPerRecord(count: number, fn: () => unknown): Promise<number> {
  const reps = Math.ceil(recordsPerRound / count);
  const started = process.cpuUsage();
  for (let i = 0; i < reps; i++) await fn();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / (reps * count);
}

async function fetchResponseOf(count: number, valueBytes: number): Promise<Buffer> {
  const records = Array.from({ length: count }, (_, i) =>
    Record({
      offsetDelta: i,
      timestampDelta: i,
      key: Buffer.from(`user-${i}`),
      value: Buffer.alloc(valueBytes, 97),
      headers: { 'hookline-delivered-from': Buffer.from('router') },
    }),
  );
  const batch = (
    await RecordBatch({ firstOffset: Long.fromValue(123_456), lastOffsetDelta: count - 1, records })
  ).buffer as Buffer;
  return new Encoder()
    .writeInt32(0)
    .writeInt16(0)
    .writeInt32(0)
    .writeInt32(1)
    .writeString('hookline.events')
    .writeInt32(1)
    .writeInt32(0)
    .writeInt16(0)
    .writeInt64(1_000)
    .writeInt64(1_000)
    .writeInt64(0)
    .writeInt32(0)
    .writeInt32(-1)
    .writeInt32(batch.length)
    .writeBuffer(batch).buffer as Buffer;
}

function produceArgsOf(count: number, valueBytes: number): ProduceRequestArgs {
  const messages = Array.from({ length: count }, (_, i) => ({
    key: `user-${i}`,
    value: Buffer.alloc(valueBytes, i),
  }));
  return {
    acks: -1,
    timeout: 30_000,
    producerId: Long.fromValue(5),
    producerEpoch: 0,
    topicData: [{ topic: 'hookline.attempts', partitions: [{ partition: 1, firstSequence: 5, messages }] }],
  };
}

async function main(): Promise<void> {
  for (const { count, valueBytes } of SHAPES) {
    const raw = await fetchResponseOf(count, valueBytes);
    const args = produceArgsOf(count, valueBytes);
    const figures: string[] = [];
    for (let round = 0; round < 3; round++) {
      const encodeKafkajs = await cpuPerRecord(count, () => produceV3(args).encode());
      const encodeHookline = await cpuPerRecord(count, () => encodeProduceRequest(args, Date.now(), crc32c));
      const decodeKafkajs = await cpuPerRecord(count, () => fetchV11.decode(raw));
      const decodeHookline = await cpuPerRecord(count, () => decodeFetchResponse(raw));
      figures.splice(
        0,
        figures.length,
        `produce encode ${encodeKafkajs.toFixed(2)} → ${encodeHookline.toFixed(2)}`,
        `fetch decode ${decodeKafkajs.toFixed(2)} → ${decodeHookline.toFixed(2)}`,
      );
    }
    console.log(
      `${count} records of ${valueBytes} B, µs per record, kafkajs → Hookline: ${figures.join('; ')}`,
    );
  }
}

void main();
