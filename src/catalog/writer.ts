import type { Kafka, Producer } from 'kafkajs';
import { KafkaUnavailableError, errorMessage } from '../core/errors';
import type { Logger } from '../observability/logger';
import { withDeadline } from '../core/deadline';
import { CatalogLagError } from './errors';
import { producerSettings } from '../kafka/client';
import type { CatalogEntity, CatalogRecordCodec } from '../records/catalog';

/** The part of the store a writer needs: wait until an offset has been applied locally. */
export interface AppliedOffsets {
  waitForOffset(offset: string, timeoutMs: number, partition?: number): Promise<void>;
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

  /** Creates or replaces the entity. */
  put(entity: CatalogEntity): Promise<void> {
    return this.write(entity.value.id, this.options.codec.encode(entity));
  }

  /** Deletes the entity: a tombstone under its id. */
  remove(id: string): Promise<void> {
    return this.write(id, null);
  }

  stop(): Promise<void> {
    return this.producer.disconnect();
  }

  private async write(key: string, value: Buffer | null): Promise<void> {
    const { topic, applied, logger } = this.options;
    const ackTimeoutMs = this.options.ackTimeoutMs ?? 10_000;
    const applyTimeoutMs = this.options.applyTimeoutMs ?? 5_000;
    let partition: number;
    let offset: string;
    try {
      const [metadata] = await withDeadline(
        this.producer.send({ topic, acks: -1, timeout: ackTimeoutMs, messages: [{ key, value }] }),
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
    } catch (err) {
      if (!(err instanceof CatalogLagError)) throw err;
      // The record is durable; only read-your-writes is late. Failing the request would invite a
      // retry that duplicates a creation, so the write is acknowledged and the lag reported.
      logger.warn(
        { key, partition, offset, reason: err.message },
        'catalog write acknowledged before being applied locally',
      );
    }
  }
}
