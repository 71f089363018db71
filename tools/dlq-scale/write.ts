import { CompressionTypes, Kafka, logLevel } from 'kafkajs';
import { connectAvro } from '../../src/avro/connect';
import { silentLogger } from '../../src/observability/logger';
import { encodeTask, taskKey, type DeliveryTask } from '../../src/records/delivery-task';
import { encodeRedriven } from '../../src/records/dlq';

export interface FillOptions {
  kafkaBrokers: string[];
  schemaRegistryUrl: string;
  topic: string;
  records: number;
  destinations: number;
  payloadBytes: number;
  /** Every n-th dead letter also gets a redrive marker (0: none). */
  redriveEvery: number;
  /** Dead-letter times spread evenly over this window, ending now. */
  spanMs: number;
  log: (line: string) => void;
}

/** The reasons the dead letters carry, most of them the usual one. */
export const REASONS = ['retry_cutoff', 'retry_cutoff', 'retry_cutoff', 'http_410', 'circuit_open'] as const;

export const destinationId = (i: number) => `dst_${String(i).padStart(3, '0')}`;

/** The i-th dead letter the tool writes: the same on every call, so the probe can name some. */
export function deadLetter(i: number, options: FillOptions, nowMs: number): DeliveryTask {
  const destination = destinationId(i % options.destinations);
  const messageId = `msg-${i.toString(36)}-scale`;
  const at = nowMs - options.spanMs + Math.floor((i * options.spanMs) / options.records);
  const filler = 'x'.repeat(Math.max(0, options.payloadBytes - 120));
  return {
    taskId: `src_scale:${messageId}:${destination}`,
    destinationId: destination,
    sourceId: 'src_scale',
    messageId,
    eventType: 'track',
    userKey: `user-${i % 10_000}`,
    payload: JSON.stringify({ type: 'track', event: 'Order Completed', messageId, properties: { filler } }),
    receivedAtMs: at - 4 * 3_600_000,
    attempts: 3,
    firstAttemptAtMs: at - 4 * 3_600_000,
    history: [0, 1, 2].map((n) => ({
      atMs: at - (3 - n) * 3_600_000,
      durationMs: 5_000,
      urlIndex: 0,
      result: 'timeout' as const,
      error: 'timed out after 5000 ms',
    })),
    deadLetterReason: REASONS[i % REASONS.length],
    deadLetteredAtMs: at,
  };
}

/**
 * Writes `records` dead-lettered tasks to a fresh, single-partition dead-letter topic, encoded
 * exactly as the delivery stage writes them, then a redrive marker for every `redriveEvery`-th
 * one (dead letter i is at offset i: one producer, in order, on a new topic).
 */
export async function fillDeadLetterTopic(options: FillOptions): Promise<{ bytes: number }> {
  const avro = await connectAvro({ url: options.schemaRegistryUrl, logger: silentLogger() });
  const kafka = new Kafka({
    clientId: 'hookline-dlq-scale',
    brokers: options.kafkaBrokers,
    logLevel: logLevel.NOTHING,
  });
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const nowMs = Date.now();
  // Under the broker's 1 MB message (batch) limit: a dead letter is about 400 bytes plus its payload.
  const batch = Math.max(1, Math.floor(600_000 / (options.payloadBytes + 400)));
  let bytes = 0;
  try {
    for (let start = 0; start < options.records; start += batch) {
      const messages = [];
      for (let i = start; i < Math.min(start + batch, options.records); i++) {
        const task = deadLetter(i, options, nowMs);
        const value = encodeTask(avro, task);
        bytes += value.length;
        messages.push({ key: taskKey(task), value });
      }
      await producer.send({ topic: options.topic, messages, compression: CompressionTypes.None });
      if ((start / batch) % 200 === 0) options.log(`wrote ${start + messages.length} dead letters`);
    }
    const markers = [];
    for (let i = 0; options.redriveEvery > 0 && i < options.records; i += options.redriveEvery) {
      const task = deadLetter(i, options, nowMs);
      markers.push({
        key: taskKey(task),
        value: encodeRedriven(avro, {
          taskId: task.taskId,
          deadLetter: { partition: 0, offset: String(i) },
          redrivenAtMs: nowMs,
        }),
      });
    }
    for (let start = 0; start < markers.length; start += batch) {
      await producer.send({ topic: options.topic, messages: markers.slice(start, start + batch) });
    }
    options.log(
      `wrote ${options.records} dead letters (${(bytes / 1e6).toFixed(0)} MB) and ${markers.length} markers`,
    );
  } finally {
    await producer.disconnect();
  }
  return { bytes };
}
