import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Producer } from 'kafkajs';
import { isJsonObject, parseJsonText, type JsonValue } from '../../src/events/json';
import { eventKey } from '../../src/events/types';
import { MAX_REQUEST_BYTES, normalizeEvent, type NormalizeOptions } from '../../src/events/normalize';
import { readBody } from '../../src/http/respond';
import type { EventCodec } from '../../src/records/event';
import type { EncodedRecord } from './events';
import { listenOnLoopback } from './loopback-server';

/**
 * What the tracking API's target is held against, below Hookline's own code: two servers that do
 * only what any tracking endpoint must, with the raw baseline's producer.
 *
 * - `http`: node:http reads the batch request's body whole, sends the next `batchSize` ready
 *   records (the raw baseline's) with one sendBatch, and answers 200 once Kafka acknowledged
 *   them. What receiving the requests adds to the raw produce, and nothing else.
 * - `stages`: the same, but the records are the request's own events, made by Hookline's pure
 *   stages as the tracking API calls them (parseJsonText with its scan, normalizeEvent,
 *   EventCodec.encode, eventKey). No admission queue, write-key lookup, metrics, router or
 *   BatchingProducer: the cost of those is what Hookline's round takes beyond this one.
 */
export type IngestFloorKind = 'http' | 'stages';

export interface IngestFloor {
  url: string;
  close(): Promise<void>;
}

export interface IngestFloorOptions {
  kind: IngestFloorKind;
  producer: Producer;
  topic: string;
  codec: EventCodec;
  sourceId: string;
  /** `http`: the records it sends, `batchSize` a request, round robin. */
  records: EncodedRecord[];
  batchSize: number;
}

export async function startIngestFloor(options: IngestFloorOptions): Promise<IngestFloor> {
  let next = 0;
  const readyRecords = (): EncodedRecord[] => {
    if (next >= options.records.length) next = 0;
    return options.records.slice(next, (next += options.batchSize));
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req, MAX_REQUEST_BYTES);
    const messages = options.kind === 'http' ? readyRecords() : trackingRecords(body, options);
    await options.producer.sendBatch({ topicMessages: [{ topic: options.topic, messages }], acks: -1 });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true}');
  };
  const server = createServer({ keepAlive: true }, (req, res) => {
    handle(req, res).catch((err: Error) => {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(err.message);
    });
  });
  return listenOnLoopback(server);
}

/** The tracking API's stages for one `/v1/batch` body: every event must be valid (it is). */
export function trackingRecords(
  body: Buffer,
  options: { codec: EventCodec; sourceId: string },
): EncodedRecord[] {
  const { value, plain, scan } = parseJsonText(body.toString('utf8'), { events: true });
  if (!isJsonObject(value) || !Array.isArray(value.batch)) throw new Error('not a batch');
  const normalize: NormalizeOptions = {
    sourceId: options.sourceId,
    receivedAtMs: Date.now(),
    pathType: undefined,
    defaults: { sentAt: value.sentAt },
    newMessageId: randomUUID,
    plainJson: plain,
  };
  return value.batch.map((raw: JsonValue, index) => {
    normalize.sourceTexts = scan?.batch?.[index];
    const result = normalizeEvent(raw, normalize);
    if (!result.ok) throw new Error(result.rejection.reason);
    return { key: eventKey(result.event), value: options.codec.encode(result.event, result.precomputed) };
  });
}
