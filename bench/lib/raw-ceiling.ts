import type { Kafka, Producer } from 'kafkajs';
import { serialisePayload } from '../../src/routing/payload';
import type { EventCodec } from '../../src/records/event';
import { BENCH_PARTITIONS, runId } from './app';
import { encodeEvents, normalizedEvent } from './events';
import { postClosedLoop, type LoadResult } from './http-load';
import { BATCH_SIZE, CLIENTS } from './pipeline';
import { consumeAll, produceClosedLoop, type Throughput } from './raw-kafka';
import { perSecond } from './stats';
import { createReadyTopic } from './topics';

export interface RawCeiling {
  produced: Throughput;
  consumed: Throughput;
  posted: LoadResult;
  /** (a) N ÷ (produce time + consume time). */
  kafkaCeiling: number;
  /** (b) raw keep-alive POSTs per second. */
  httpCeiling: number;
  /** min(a, b): what Hookline's deliveries/s is held against. */
  ceiling: number;
}

export interface RawCeilingOptions {
  kafka: Kafka;
  producer: Producer;
  codec: EventCodec;
  prefix: string;
  sourceId: string;
  url: string;
  events: number;
  concurrency: number;
}

/**
 * The e2e scenarios' raw ceiling, measured in the same run: (a) raw kafkajs produce of `events`
 * records onto `<prefix>.raw-events-<round>` (the bench's partitions), then consume them with a new
 * group; (b) raw keep-alive POSTs of Hookline's webhook body to `url`, `concurrency` at once.
 * Measured after one discarded round of the same.
 */
export async function measureRawCeiling(options: RawCeilingOptions): Promise<RawCeiling> {
  await warmRawCeiling(options);
  return rawCeilingRound(options, 1);
}

/**
 * One discarded round: a measured round then finds kafkajs, node:http and the connections warm,
 * as Hookline's run finds them after its own discarded run (pipeline.ts, warmUpToSteadyState).
 */
export async function warmRawCeiling(options: RawCeilingOptions): Promise<void> {
  await rawRound({ ...options, rawTopic: `${options.prefix}.raw-warm`, group: 'raw-warm-reader' });
}

/** One measured round (`round` names its topic and group: each round has its own). */
export function rawCeilingRound(options: RawCeilingOptions, round: number): Promise<RawCeiling> {
  return rawRound({
    ...options,
    rawTopic: `${options.prefix}.raw-events-${round}`,
    group: `raw-reader-${round}`,
  });
}

async function rawRound(
  options: RawCeilingOptions & { rawTopic: string; group: string },
): Promise<RawCeiling> {
  const { kafka, producer, events, rawTopic } = options;
  await createReadyTopic(kafka, rawTopic, BENCH_PARTITIONS);
  const records = encodeEvents(options.codec, options.sourceId, runId('raw'), events);
  const produced = await produceClosedLoop({
    producer,
    topic: rawTopic,
    records,
    batchSize: BATCH_SIZE,
    concurrency: CLIENTS,
  });
  const consumed = await consumeAll({
    kafka,
    topic: rawTopic,
    groupId: `${options.prefix}.${options.group}`,
    expected: events,
    timeoutMs: 60_000,
  });
  if (!consumed.complete) throw new Error(`raw consume read ${consumed.count} of ${events} records`);
  const kafkaCeiling = perSecond(events, produced.elapsedMs + consumed.elapsedMs);

  const payload = webhookBody(options.sourceId);
  const posted = await postClosedLoop({
    url: options.url,
    concurrency: options.concurrency,
    requests: events,
    body: () => payload,
    timeoutMs: 60_000,
  });
  if (posted.failed > 0) throw new Error(`raw POSTs failed: ${posted.firstFailure}`);
  const httpCeiling = perSecond(posted.ok, posted.elapsedMs);
  return {
    produced,
    consumed,
    posted,
    kafkaCeiling,
    httpCeiling,
    ceiling: Math.min(kafkaCeiling, httpCeiling),
  };
}

/** The body of the webhook Hookline delivers for one bench event of `sourceId` (as the router shapes it). */
export function webhookBody(sourceId: string): string {
  return serialisePayload(normalizedEvent(sourceId, 'raw', 0));
}
