import type { AvroCodec } from '../avro/codec';
import type { EventCodec } from '../records/event';
import type { PrecomputedFields } from '../events/normalize';
import { eventKey, type HooklineEvent } from '../events/types';
import type { BatchingProducer, OutgoingMessage } from '../kafka/batching-producer';
import { encodeRejectedEvent, type RejectedEvent } from '../records/rejected-event';

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

  /**
   * Encodes first, so an unencodable event fails the call before anything is written.
   * `precomputed[i]`, when given, is what normalizeEvent computed for `accepted[i]`.
   */
  async publish(
    accepted: HooklineEvent[],
    rejected: RejectedEvent[],
    precomputed?: readonly PrecomputedFields[],
  ): Promise<void> {
    const { events, avro, eventsTopic, ingestDlqTopic } = this.options;
    const messages: OutgoingMessage[] = accepted.map((event, i) => ({
      topic: eventsTopic,
      key: eventKey(event),
      value: events.encode(event, precomputed?.[i]),
    }));
    for (const r of rejected) {
      messages.push({
        topic: ingestDlqTopic,
        key: r.sourceId,
        value: encodeRejectedEvent(avro, r),
      });
    }
    await this.options.producer.send(messages);
  }
}
