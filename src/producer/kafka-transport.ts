import { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import type { Admin } from 'kafkajs';
import { AvroCodec } from '../avro/codec';
import { defaultSchemaDir, loadSchemaFiles } from '../avro/schema-files';
import { SOURCE_RECORD } from '../records/catalog';
import { HooklineError, KafkaUnavailableError, errorMessage } from '../core/errors';
import { EVENT_NAMESPACE, EventCodec } from '../records/event';
import { eventKey } from '../events/types';
import { BatchingProducer, type OutgoingMessage } from '../kafka/batching-producer';
import { createKafka } from '../kafka/client';
import { hooklinePartitioner } from '../kafka/partitioner';
import { topicNames } from '../kafka/topics';
import { Lifecycle } from '../core/lifecycle';
import { TopicNotFoundError } from './errors';
import { kafkaSendFailure } from './kafka-failure';
import { normalizeCall } from './messages';
import type { KafkaConnection, ResolvedCommon } from './options';
import { followSource } from './source';
import type { Transport } from './transport';

/**
 * Connects the Kafka transport: the write key's source from the catalog topic, the event schemas
 * registered, and one idempotent producer (acks=all). Events are normalised by the tracking API's
 * own code, encoded with the same EventCodec, keyed by eventKey, and written to `<prefix>.events`
 * with kafkajs's default partitioner: the very records the API would write.
 */
export async function connectKafkaTransport(
  writeKey: string,
  connection: KafkaConnection,
  common: ResolvedCommon,
): Promise<Transport<OutgoingMessage>> {
  const { logger, clock } = common;
  const topics = topicNames(connection.topicPrefix);
  const lifecycle = new Lifecycle(logger);
  try {
    const { brokers, clientId, ssl, sasl } = connection;
    // Plain kafkajs: the library runs inside someone else's application and changes nothing in its kafkajs.
    const kafka = createKafka({ brokers, clientId, ssl, sasl, logger, patches: 'none' });
    const admin = kafka.admin();
    await admin.connect();
    lifecycle.onStop('kafka-admin', () => admin.disconnect());
    await assertTopicsExist(admin, [topics.events, topics.catalog]);

    const registry = new SchemaRegistry({
      host: connection.registry.url,
      auth:
        connection.registry.username && connection.registry.password
          ? { username: connection.registry.username, password: connection.registry.password }
          : undefined,
    });
    const avro = await AvroCodec.create({ registry, schemas: producerSchemas(), logger });
    const events = new EventCodec(avro);

    const source = await followSource({
      kafka,
      admin,
      avro,
      topic: topics.catalog,
      clientId: connection.clientId,
      writeKey,
      logger,
      clock,
      catchUpTimeoutMs: connection.connectTimeoutMs,
    });
    // Needed by `prepare` only (is the source still accepting?): it stops as soon as close()
    // begins, while the queue is sent, so close() does not also wait for its fetch to return.
    let sourceStopped: Promise<void> | undefined;
    const stopSource = () => (sourceStopped ??= source.stop());
    lifecycle.onStop('catalog', stopSource);

    const producer = kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      createPartitioner: hooklinePartitioner,
    });
    await producer.connect();
    lifecycle.onStop('producer', () => producer.disconnect());
    // No timeout on the send itself: a send given up on may still be written (kafkajs retries it,
    // without end on an idempotent producer), so sending the batch again would write it twice.
    // The batcher reports a batch unanswered after ackTimeoutMs and keeps it in flight instead.
    const batching = new BatchingProducer({ producer, ackTimeoutMs: undefined, logger });
    const { ackTimeoutMs } = connection;
    await admin.disconnect(); // needed only to start

    logger.info(
      { sourceId: source.sourceId, topic: topics.events, brokers: connection.brokers },
      'connected to Kafka',
    );
    return {
      name: 'kafka',
      sourceId: source.sourceId,
      batchOverheadBytes: 0,
      itemOverheadBytes: 0,
      prepare(raw) {
        source.assertAccepting();
        const { event, precomputed } = normalizeCall(raw, {
          sourceId: source.sourceId,
          receivedAtMs: clock.now(),
        });
        const key = eventKey(event);
        const value = events.encode(event, precomputed);
        return {
          payload: { topic: topics.events, key, value },
          bytes: Buffer.byteLength(key) + value.length,
          messageId: event.messageId,
        };
      },
      send: (batch) =>
        batching.send(batch).catch((err: unknown) => {
          throw kafkaSendFailure(err);
        }),
      ackTimeout: {
        afterMs: ackTimeoutMs,
        error: () =>
          new KafkaUnavailableError(
            `Kafka did not acknowledge a batch within ${ackTimeoutMs} ms; it stays in flight until Kafka answers`,
          ),
      },
      closing: () => {
        // Errors surface (logged) when close() awaits the same stop.
        stopSource().catch(() => undefined);
      },
      close: () => lifecycle.stop(),
    };
  } catch (err) {
    await lifecycle.stop();
    if (err instanceof HooklineError) throw err;
    throw new KafkaUnavailableError(`could not connect to Kafka: ${errorMessage(err)}`, { cause: err });
  }
}

/**
 * The library writes events and reads the catalog's sources: only those schemas are registered.
 * Without the Destination schema it could not decode a destination record even by mistake. The
 * package build (packages/producer) ships exactly these files.
 */
export function producerSchemas(dir = defaultSchemaDir()) {
  return loadSchemaFiles(dir).filter(
    (s) => s.fullName.startsWith(`${EVENT_NAMESPACE}.`) || s.fullName === SOURCE_RECORD,
  );
}

async function assertTopicsExist(admin: Admin, wanted: string[]): Promise<void> {
  const existing = new Set(await admin.listTopics());
  const missing = wanted.find((t) => !existing.has(t));
  if (missing !== undefined) throw new TopicNotFoundError(missing);
}
