import { createServer, Agent, type IncomingMessage, type Server } from 'node:http';
import type { Admin, Consumer, Kafka, KafkaMessage, Producer } from 'kafkajs';
import { Registry } from 'prom-client';
import type { AvroCodec } from '../../src/avro/codec';
import type { Config } from '../../src/config/config';
import { systemClock } from '../../src/core/clock';
import { createDeliveryMetrics } from '../../src/delivery/metrics';
import { createWebhookClient, type WebhookClient } from '../../src/delivery/http/client';
import { SIGNATURE_HEADER, signatureFor } from '../../src/delivery/http/signing';
import { MAX_REQUEST_BYTES } from '../../src/events/normalize';
import { readBody } from '../../src/http/respond';
import { BatchingProducer } from '../../src/kafka/batching-producer';
import { producerSettings } from '../../src/kafka/client';
import { silentLogger } from '../../src/observability/logger';
import { startAttemptIndex, type AttemptIndex } from '../../src/operations/attempts/topic-index';
import { encodeAttempt } from '../../src/records/delivery-attempt';
import { taskId } from '../../src/records/delivery-task';
import type { EventCodec } from '../../src/records/event';
import { DedupeWindow } from '../../src/routing/dedupe';
import { serialisePayload } from '../../src/routing/payload';
import { createAddressPolicy } from '../../src/security/address-policy';
import { LOOPBACK_NETWORKS } from '../../test/support/app';
import { BENCH_PARTITIONS } from './app';
import { formatMachineUse, type MachineUse } from './machine-cpu';
import type { DeliveryRun } from './pipeline';
import type { RawCeiling } from './raw-ceiling';
import type { Figure } from './scenario';
import { median, medianIndex, perSecond, usPerItem } from './stats';
import { post } from './http-load';
import { trackingRecords } from './ingest-floor';
import { listenOnLoopback } from './loopback-server';
import { createReadyTopic } from './topics';

/**
 * The end-to-end floors: relays far simpler than Hookline, run in the bench process (where
 * Hookline runs) and fed and counted as Hookline is, so that `e2e` can say how much of the raw
 * ceiling such a relay reaches on this machine. Both take batch requests with node:http, write
 * the events to one topic with one raw sendBatch per request (200 once Kafka acknowledged them),
 * and read it back with one consumer group (8 partitions at once, as the raw consume) that POSTs
 * each record, at most `concurrency` at once, and commits a batch once all its POSTs answered.
 *
 * - `least`: the least a Kafka-backed relay does, with the raw baselines' clients. JSON.parse,
 *   each event's JSON text (keyed by its userId) as the record, and that text POSTed as it is
 *   with node:http keep-alive. No validation, Avro, schema registry or signature.
 * - `mandated`: the work the spec asks of every event, with Hookline's own stages and clients and
 *   nothing else. In: the tracking API's parse, validation and normalisation, Avro encoding
 *   (`trackingRecords`). Out: Avro decoding with the free-form objects checked
 *   (`decodeWithTexts`), the webhook payload (`serialisePayload`), its `X-Signature`
 *   (HMAC-SHA1), and the POST through Hookline's webhook client (undici, SSRF guard). No
 *   write-key lookup, admission queue, metrics, de-duplication, routing, attempt records,
 *   retries, ordering or isolation.
 * - `recorded`: `mandated`, plus what the other issues ask of every delivered event, with
 *   Hookline's own parts and settings: the messageId de-duplication claim (issue 5,
 *   `DedupeWindow`), the delivery metrics (issue 5: deliveries by destination and outcome, the
 *   attempt latency histogram, in-flight; `createDeliveryMetrics`), and the attempt record on a
 *   topic of its own (issue 6: every attempt an event the admin API lists), written through a
 *   lingering `BatchingProducer` as Hookline's hand-off is, and read back by an attempt index
 *   (`startAttemptIndex`); a batch is committed once its attempt records are on Kafka. No
 *   write-key lookup, admission queue, routing, retries, ordering or isolation.
 *
 * None retries: a POST that fails is counted in `failedPosts` (the receivers answer 200).
 */
export type E2eFloorKind = 'least' | 'mandated' | 'recorded';

export interface E2eFloor {
  kind: E2eFloorKind;
  /** Takes `/v1/batch` requests (any path) as the tracking API does. */
  baseUrl: string;
  /** POSTs that did not get a 2xx. */
  readonly failedPosts: number;
  stop(): Promise<void>;
}

export interface E2eFloorOptions {
  kind: E2eFloorKind;
  kafka: Kafka;
  producer: Producer;
  /** Names its topic `<prefix>.floor-<kind>` and its group `<prefix>.floor-<kind>-relay`. */
  prefix: string;
  /** The receiver. */
  url: string;
  /** Requests in flight at most (the worker's per-destination concurrency). */
  concurrency: number;
  /** `mandated`: the event codec and source id the records are made with, and the shared secret. */
  codec: EventCodec;
  sourceId: string;
  secret: string;
  /** `recorded`: Hookline's settings, Avro codec and admin client (for the attempt index). */
  config: Config;
  avro: AvroCodec;
  admin: Admin;
  /**
   * `recorded`: keep an attempt index here (default true). Of several relay processes one keeps
   * it, as of Hookline's HOOKLINE_WORKERS children one keeps the group's.
   */
  attemptIndex?: boolean;
}

/** Turns a request body into records, and POSTs one record. */
interface Relay {
  records(body: Buffer): { key: string | null; value: string | Buffer }[];
  deliver(message: KafkaMessage): Promise<boolean>;
  close(): void | Promise<void>;
}

export async function startE2eFloor(options: E2eFloorOptions): Promise<E2eFloor> {
  const { kafka, producer, prefix, kind } = options;
  const topic = `${prefix}.floor-${kind}`;
  await createReadyTopic(kafka, topic, BENCH_PARTITIONS);
  const relay =
    kind === 'least'
      ? leastRelay(options)
      : kind === 'mandated'
        ? mandatedRelay(options)
        : await recordedRelay(options, topic);
  let failedPosts = 0;
  const consumer: Consumer = kafka.consumer({
    groupId: `${topic}-relay`,
    maxWaitTimeInMs: 100,
    allowAutoTopicCreation: false,
  });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    partitionsConsumedConcurrently: 8,
    eachBatch: async ({ batch }) => {
      const outcomes = await Promise.all(batch.messages.map((m) => relay.deliver(m)));
      for (const ok of outcomes) if (!ok) failedPosts++;
    },
  });

  const relayIn = async (req: IncomingMessage) => {
    const messages = relay.records(await readBody(req, MAX_REQUEST_BYTES));
    await producer.sendBatch({ topicMessages: [{ topic, messages }], acks: -1 });
  };
  const server: Server = createServer({ keepAlive: true }, (req, res) => {
    relayIn(req).then(
      () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true}'),
      (err: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(err.message),
    );
  });
  const listening = await listenOnLoopback(server);
  return {
    kind,
    baseUrl: listening.url,
    get failedPosts() {
      return failedPosts;
    },
    stop: async () => {
      await listening.close();
      await consumer.disconnect();
      await relay.close();
    },
  };
}

function leastRelay(options: E2eFloorOptions): Relay {
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  return {
    records: (body) =>
      ((JSON.parse(body.toString('utf8')) as { batch?: Record<string, unknown>[] }).batch ?? []).map(
        (event) => ({
          key: typeof event.userId === 'string' ? event.userId : null,
          value: JSON.stringify(event),
        }),
      ),
    deliver: async (m) => {
      const { status } = await post(agent, options.url, m.value ? m.value.toString('utf8') : '{}');
      return status >= 200 && status < 300;
    },
    close: () => agent.destroy(),
  };
}

function mandatedRelay(options: E2eFloorOptions): Relay {
  const client = floorClient(options);
  return {
    records: (body) => trackingRecords(body, options),
    deliver: async (m) => {
      const { event, texts } = await options.codec.decodeWithTexts(m.value!);
      const attempt = await signAndPost(client, options, serialisePayload(event, texts));
      return isSuccess(attempt);
    },
    close: () => client.close(),
  };
}

/** The destination id `recorded` names in its claims, metrics and attempt records. */
const FLOOR_DESTINATION_ID = 'dst_floor';

async function recordedRelay(options: E2eFloorOptions, topic: string): Promise<Relay> {
  const { config, avro, codec } = options;
  const clock = systemClock;
  const logger = silentLogger();
  const attemptsTopic = `${topic}.attempts`;
  await createReadyTopic(options.kafka, attemptsTopic, BENCH_PARTITIONS);
  const client = floorClient(options);
  const dedupe = new DedupeWindow({
    windowMs: config.routing.dedupeWindowMs,
    maxEntries: config.routing.dedupeMaxEntries,
    clock,
  });
  const metrics = createDeliveryMetrics(new Registry());
  // A producer of its own, made as Hookline makes its producer (its partitioner included).
  const attemptsProducer = options.kafka.producer(producerSettings());
  await attemptsProducer.connect();
  const handoff = new BatchingProducer({
    producer: attemptsProducer,
    ackTimeoutMs: undefined,
    clock,
    logger,
  }).lingering(config.kafka.lingerMs);
  const index: AttemptIndex | undefined =
    options.attemptIndex === false
      ? undefined
      : await startAttemptIndex({
          kafka: options.kafka,
          admin: options.admin,
          avro,
          topic: attemptsTopic,
          clientId: `${topic}-relay`,
          windowMs: config.operations.attemptIndexWindowMs,
          perDestination: config.operations.attemptsPerDestination,
          maxBytes: config.operations.attemptIndexMaxBytes,
          clock,
          logger,
        });
  const destination_id = FLOOR_DESTINATION_ID;
  return {
    records: (body) => trackingRecords(body, options),
    deliver: async (m) => {
      const { event, texts } = await codec.decodeWithTexts(m.value!);
      if (!dedupe.claim(`${event.sourceId}:${event.messageId}`)) return true;
      const startedAtMs = clock.now();
      metrics.inFlight.inc();
      const attempt = await signAndPost(client, options, serialisePayload(event, texts));
      metrics.inFlight.dec();
      const ok = isSuccess(attempt);
      const result = ok ? 'success' : 'http_5xx';
      metrics.attempts.inc({ destination_id, result });
      metrics.attemptSeconds.observe({ destination_id }, attempt.durationMs / 1_000);
      await handoff.send([
        {
          topic: attemptsTopic,
          key: destination_id,
          value: encodeAttempt(avro, {
            taskId: taskId(event.sourceId, event.messageId, destination_id),
            destinationId: destination_id,
            sourceId: event.sourceId,
            messageId: event.messageId,
            eventType: event.type,
            attempt: 1,
            atMs: startedAtMs,
            durationMs: clock.now() - startedAtMs,
            outcome: ok ? 'delivered' : 'dead_lettered',
            urls: [
              {
                urlIndex: 0,
                result,
                ...(attempt.kind === 'response' && { status: attempt.status }),
                durationMs: attempt.durationMs,
              },
            ],
          }),
        },
      ]);
      metrics.deliveries.inc({ destination_id, outcome: ok ? 'delivered' : 'dead_lettered' });
      if (ok) metrics.endToEndSeconds.observe((clock.now() - Date.parse(event.receivedAt)) / 1_000);
      return ok;
    },
    close: async () => {
      await index?.stop();
      await attemptsProducer.disconnect();
      client.close();
    },
  };
}

function floorClient(options: E2eFloorOptions): WebhookClient {
  return createWebhookClient({
    maxSocketsPerOrigin: options.concurrency,
    addressPolicy: createAddressPolicy({ allowedNetworks: LOOPBACK_NETWORKS.split(',') }),
  });
}

/** The webhook request the spec asks for: the body, its `X-Signature`, through Hookline's client. */
function signAndPost(client: WebhookClient, options: E2eFloorOptions, body: string) {
  return client.post({
    url: options.url,
    headers: {
      'content-type': 'application/json',
      'user-agent': client.userAgent,
      [SIGNATURE_HEADER]: signatureFor(options.secret, body),
    },
    body,
  });
}

function isSuccess(attempt: Awaited<ReturnType<WebhookClient['post']>>): boolean {
  return attempt.kind === 'response' && attempt.status >= 200 && attempt.status < 300;
}

/**
 * A floor's figures: its rate ÷ the raw ceiling (median of the rounds, with its CPU per event and
 * the machine's in the median round), ÷ the compiled client's ceiling, and Hookline's rate ÷ its, round by round.
 */
export function floorFigures(
  name: string,
  rounds: { floor: DeliveryRun; machine: MachineUse | undefined; raw: RawCeiling; delivered: number }[],
  options: { compiledCeiling: number | undefined; failedPosts: number },
): Figure[] {
  const ratios = rounds.map((r) => floorRate(r.floor) / r.raw.ceiling);
  const toFloor = rounds.map((r) => r.delivered / floorRate(r.floor));
  const mid = rounds[medianIndex(ratios)]!;
  const list = (values: number[]) => values.map((v) => v.toFixed(2)).join(', ');
  return [
    {
      label: `${name} ÷ raw ceiling`,
      value: median(ratios),
      unit: '×',
      detail: `lib/e2e-floor.ts, median of ${rounds.length} rounds: ${list(ratios)}; ${usPerItem(mid.floor.appCpuMs, mid.floor.delivered).toFixed(1)} µs CPU/event; ${formatMachineUse(mid.machine)}${options.failedPosts > 0 ? `; ${options.failedPosts} POSTs failed` : ''}`,
    },
    ...(options.compiledCeiling !== undefined
      ? [
          {
            label: `${name} ÷ compiled-client HTTP ceiling`,
            value: median(rounds.map((r) => floorRate(r.floor))) / options.compiledCeiling,
            unit: '×',
            detail: `the median round of the ${name}`,
          },
        ]
      : []),
    {
      label: `Hookline delivered ÷ ${name}`,
      value: median(toFloor),
      unit: '×',
      detail: `median of ${rounds.length} rounds: ${list(toFloor)}`,
    },
  ];
}

/** Delivered/s of a floor's run: first tracking call → last arrival. */
export const floorRate = (run: DeliveryRun) => perSecond(run.delivered, run.elapsedMs);
