import type { Kafka, Producer } from 'kafkajs';
import { KafkaUnavailableError, errorMessage } from '../core/errors';
import type { Logger } from '../observability/logger';
import { withDeadline } from '../core/deadline';
import { CatalogConflictError, CatalogLagError } from './errors';
import { producerSettings } from '../kafka/client';
import type { CatalogEntity, CatalogRecordCodec } from '../records/catalog';
import type { Rejection, TopicPosition } from './store';
import { versionHeaders } from './versions';

/** The part of the store a writer needs: wait until an offset has been applied locally, and how. */
export interface AppliedOffsets {
  waitForOffset(offset: string, timeoutMs: number, partition?: number): Promise<void>;
  rejection(position: TopicPosition): Rejection | undefined;
}

export interface CatalogWriterOptions {
  kafka: Kafka;
  topic: string;
  codec: CatalogRecordCodec;
  applied: AppliedOffsets;
  logger: Logger;
  /** How long a write may take to be acknowledged by all in-sync replicas. */
  ackTimeoutMs?: number;
  /** How long to wait, after the ack, for the local materialiser to apply the record. */
  applyTimeoutMs?: number;
}

/**
 * Writes catalog records (key = entity id, value = Avro, tombstone = delete) with acks=all, then
 * waits until this process's materialiser has applied the offset the record got, so that a read
 * right after a write sees it. One record in flight at a time keeps the log in write order.
 *
 * A record with a version (versions.ts) is a compare-and-set: when the materialiser rejects it
 * (another write, on any replica, got that version first), the writer re-appends the current state
 * if its record would otherwise be the one compaction keeps, and throws CatalogConflictError.
 */
export class CatalogWriter {
  private constructor(
    private readonly options: CatalogWriterOptions,
    private readonly producer: Producer,
  ) {}

  static async start(options: CatalogWriterOptions): Promise<CatalogWriter> {
    const producer = options.kafka.producer(producerSettings());
    await producer.connect();
    return new CatalogWriter(options, producer);
  }

  /** Creates or replaces the entity; with `version`, only if it is the entity's next version. */
  put(entity: CatalogEntity, version?: number): Promise<void> {
    return this.write(entity.value.id, this.options.codec.encode(entity), version);
  }

  /** Deletes the entity (a tombstone under its id); with `version`, only if it is still that version. */
  remove(id: string, version?: number): Promise<void> {
    return this.write(id, null, version);
  }

  stop(): Promise<void> {
    return this.producer.disconnect();
  }

  private async write(key: string, value: Buffer | null, version?: number): Promise<void> {
    const position = await this.append(key, value, versionHeaders(version));
    const rejection = position && this.options.applied.rejection(position);
    if (!rejection) return;
    if (rejection.repair) {
      const { entity, version: current } = rejection.repair;
      const repair = entity ? this.options.codec.encode(entity) : null;
      await this.append(key, repair, versionHeaders(current, true));
    }
    throw new CatalogConflictError(key, rejection.currentVersion);
  }

  /** Appends one record and waits until it is applied here; its position, unless that wait timed out. */
  private async append(
    key: string,
    value: Buffer | null,
    headers: Record<string, string>,
  ): Promise<TopicPosition | undefined> {
    const { topic, applied, logger } = this.options;
    const ackTimeoutMs = this.options.ackTimeoutMs ?? 10_000;
    const applyTimeoutMs = this.options.applyTimeoutMs ?? 5_000;
    let partition: number;
    let offset: string;
    try {
      const [metadata] = await withDeadline(
        this.producer.send({ topic, acks: -1, timeout: ackTimeoutMs, messages: [{ key, value, headers }] }),
        ackTimeoutMs,
        () => new Error(`no acknowledgement within ${ackTimeoutMs} ms`),
      );
      if (!metadata?.baseOffset) throw new Error('the broker returned no offset');
      ({ partition, baseOffset: offset } = metadata);
    } catch (err) {
      throw new KafkaUnavailableError(`catalog write for ${key} not acknowledged: ${errorMessage(err)}`, {
        cause: err,
      });
    }
    try {
      await applied.waitForOffset(offset, applyTimeoutMs, partition);
      return { partition, offset };
    } catch (err) {
      if (!(err instanceof CatalogLagError)) throw err;
      // The record is durable; only read-your-writes is late. Failing the request would invite a
      // retry that duplicates a creation, so the write is acknowledged and the lag reported. Whether
      // a versioned record won is then unknown here; every replica still decides it alike.
      logger.warn(
        { key, partition, offset, reason: err.message },
        'catalog write acknowledged before being applied locally',
      );
      return undefined;
    }
  }
}
