import type { AvroCodec } from '../avro/codec';
import type { EventCodec } from '../events/codec';
import { stringifyJson, type JsonValue } from '../events/json';
import { eventKey, type HooklineEvent } from '../events/types';
import type { BatchingProducer, OutgoingMessage } from '../kafka/batching-producer';
import type { Rejection } from './rejection';

export const REJECTED_EVENT_RECORD = 'io.hookline.ingest.RejectedEvent';

export interface RejectedEvent {
  sourceId: string;
  receivedAtMs: number;
  path: string;
  index: number;
  messageId: string | undefined;
  rejection: Rejection;
  payload: JsonValue;
}

export interface EventPublisherOptions {
  producer: BatchingProducer;
  events: EventCodec;
  avro: AvroCodec;
  eventsTopic: string;
  ingestDlqTopic: string;
}

/**
 * Writes accepted events to `hookline.events` (keyed by userId, else anonymousId, for per-user
 * order) and refused ones to `hookline.ingest-dlq`, resolving once Kafka acknowledged all of them.
 */
export class EventPublisher {
  constructor(private readonly options: EventPublisherOptions) {}

  /** Encodes first, so an unencodable event fails the call before anything is written. */
  async publish(accepted: HooklineEvent[], rejected: RejectedEvent[]): Promise<void> {
    const { events, avro, eventsTopic, ingestDlqTopic } = this.options;
    const messages: OutgoingMessage[] = accepted.map((event) => ({
      topic: eventsTopic,
      key: eventKey(event),
      value: events.encode(event),
    }));
    for (const r of rejected) {
      messages.push({
        topic: ingestDlqTopic,
        key: r.sourceId,
        value: avro.encode(REJECTED_EVENT_RECORD, {
          sourceId: r.sourceId,
          receivedAt: r.receivedAtMs,
          path: r.path,
          index: r.index,
          messageId: r.messageId ?? null,
          code: r.rejection.code,
          reason: r.rejection.reason,
          payload: stringifyJson(r.payload),
        }),
      });
    }
    await this.options.producer.send(messages);
  }
}
