import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Producer } from 'kafkajs';
import { eventKey } from '../../src/events/types';
import type { TrackMessage } from '../../src/producer';
import { normalizeCall, rawMessage } from '../../src/producer/messages';
import type { EventCodec } from '../../src/records/event';
import type { Throughput } from './raw-kafka';
import { cpuMsSince } from './stats';

/**
 * The producer library's floor: what any client of this design must do per call, with the raw
 * baseline's producer and nothing else. For each `batchSize` calls in turn: the library's own
 * per-call work (rawMessage, normalizeCall: validation and the 32 KB check, which serialises the
 * free-form objects; EventCodec.encode, eventKey), then one sendBatch, awaited. No queue, timer,
 * QueueFullError or shared producer. The library's round takes what this one takes plus what its
 * queue and batching add.
 */
export async function produceCallsClosedLoop(options: {
  producer: Producer;
  topic: string;
  codec: EventCodec;
  sourceId: string;
  calls: readonly TrackMessage[];
  batchSize: number;
}): Promise<Throughput> {
  const { producer, topic, codec, sourceId, calls, batchSize } = options;
  const cpu = process.cpuUsage();
  const startedAt = performance.now();
  for (let first = 0; first < calls.length; first += batchSize) {
    const messages = [];
    for (let i = first; i < Math.min(calls.length, first + batchSize); i++) {
      const raw = rawMessage('track', calls[i], randomUUID);
      const { event, precomputed } = normalizeCall(raw, { sourceId, receivedAtMs: Date.now() });
      messages.push({ key: eventKey(event), value: codec.encode(event, precomputed) });
    }
    await producer.sendBatch({ topicMessages: [{ topic, messages }], acks: -1 });
  }
  return { count: calls.length, elapsedMs: performance.now() - startedAt, cpuMs: cpuMsSince(cpu) };
}
