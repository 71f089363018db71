import type { Admin, Kafka } from 'kafkajs';
import type { AvroCodec } from '../avro/codec';
import type { Clock } from '../clock';
import { DELIVERY_ATTEMPT_RECORD } from '../delivery/executor';
import { UndecodableRecordError } from '../errors';
import type { Logger } from '../observability/logger';
import { AttemptLog, type AttemptEntry } from './attempt-log';
import { startIndexer } from './indexer';

export interface AttemptIndexOptions {
  kafka: Kafka;
  admin: Admin;
  avro: AvroCodec;
  /** `<prefix>.attempts`. */
  topic: string;
  /** Base of the private consumer group id. */
  clientId: string;
  /** Read attempts written in the last `windowMs` at start (24 h). */
  windowMs: number;
  /** Attempts kept per destination (1,000). */
  perDestination: number;
  clock: Clock;
  logger: Logger;
}

export interface AttemptIndex {
  log: AttemptLog;
  stop(): Promise<void>;
}

/** The DeliveryAttempt record as avsc decodes it. */
export interface AttemptValue {
  taskId: string;
  destinationId: string;
  sourceId: string;
  messageId: string;
  eventType: string;
  attempt: number;
  at: number;
  durationMs: number;
  outcome: string;
  detail: string | null;
  dueAt: number | null;
  urls: {
    urlIndex: number;
    result: string;
    status: number | null;
    durationMs: number;
    error: string | null;
  }[];
}

/**
 * Recent delivery attempts per destination, read from the attempts topic: at start from
 * `windowMs` ago (by record time), then live, with a private group that never commits. "Recent"
 * is the contract: an attempt shows up shortly after it was made, not at once.
 */
export async function startAttemptIndex(options: AttemptIndexOptions): Promise<AttemptIndex> {
  const { avro } = options;
  const log = new AttemptLog({ perDestination: options.perDestination });
  const indexer = await startIndexer({
    kafka: options.kafka,
    admin: options.admin,
    topic: options.topic,
    groupIdPrefix: `${options.clientId}-attempt-index`,
    sinceMs: options.clock.now() - options.windowMs,
    logger: options.logger.child({ component: 'attempt-index' }),
    decode: async (bytes) => {
      const { name, value } = await avro.decode(bytes);
      if (name !== DELIVERY_ATTEMPT_RECORD)
        throw new UndecodableRecordError(`${name} is not a DeliveryAttempt`);
      return attemptEntry(value as unknown as AttemptValue);
    },
    apply: (_position, entry) => log.add(entry),
  });
  return { log, stop: indexer.stop };
}

/** The Avro record → an index entry (nulls become absent fields). */
export function attemptEntry(r: AttemptValue): AttemptEntry {
  return {
    taskId: r.taskId,
    destinationId: r.destinationId,
    sourceId: r.sourceId,
    messageId: r.messageId,
    eventType: r.eventType,
    attempt: r.attempt,
    atMs: r.at,
    durationMs: r.durationMs,
    outcome: r.outcome,
    ...(r.detail !== null && { detail: r.detail }),
    ...(r.dueAt !== null && { dueAtMs: r.dueAt }),
    urls: r.urls.map((u) => ({
      urlIndex: u.urlIndex,
      result: u.result,
      ...(u.status !== null && { status: u.status }),
      durationMs: u.durationMs,
      ...(u.error !== null && { error: u.error }),
    })),
  };
}
