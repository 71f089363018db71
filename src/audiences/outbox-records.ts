import type { Message } from 'kafkajs';
import { eventKey } from '../events/types';
import type { EventCodec } from '../records/event';
import {
  encodeJsonRecord,
  partitionStateKey,
  statusKey,
  type StoredUserState,
} from '../records/audience-state';
import { announcementIdentify } from './identify';
import type { AudiencePartition, Outbox } from './partition';

export interface OutboxTopics {
  events: string;
  changes: string;
  state: string;
  status: string;
}

export interface TopicBatch {
  topic: string;
  messages: Message[];
}

/**
 * The records one step writes, in one transaction: each changed user's state (and the partition's
 * live list) on the state topic, on the partition's own number; each announcing identify on
 * hookline.events (same partition as the user's events: routed and delivered like any identify)
 * and on hookline.audience-changes; each changed computation's status. Made `chunk` records at a
 * time (a state as it is in the partition's store now), so a step over many users holds one chunk.
 */
export function* outboxRecords(
  partition: AudiencePartition,
  out: Outbox,
  options: {
    topics: OutboxTopics;
    events: EventCodec;
    nowMs: number;
    newMessageId?: () => string;
    chunk?: number;
  },
): Generator<TopicBatch> {
  const { topics, events, nowMs } = options;
  const chunk = options.chunk ?? Infinity;
  const p = partition.partition;
  function* chunks<T>(topic: string, items: Iterable<T>, toMessage: (item: T) => Message) {
    let messages: Message[] = [];
    for (const item of items) {
      messages.push(toMessage(item));
      if (messages.length >= chunk) {
        yield { topic, messages };
        messages = [];
      }
    }
    if (messages.length > 0) yield { topic, messages };
  }
  yield* chunks(topics.state, out.users, (key) => {
    const user = partition.users.get(key);
    return {
      key,
      partition: p,
      value: user ? encodeJsonRecord({ kind: 'user', state: user as StoredUserState }) : null,
    };
  });
  if (out.partitionChanged) {
    yield {
      topic: topics.state,
      messages: [
        {
          key: partitionStateKey(p),
          partition: p,
          value: encodeJsonRecord({ kind: 'partition', partition: p, live: [...partition.live] }),
        },
      ],
    };
  }
  for (let i = 0; i < out.announcements.length; i += chunk) {
    const announced: Message[] = [];
    const changes: Message[] = [];
    for (const a of out.announcements.slice(i, i + chunk)) {
      const identify = announcementIdentify(a, a.user, nowMs, options.newMessageId);
      const value = events.encode(identify);
      announced.push({ key: eventKey(identify), partition: p, value });
      changes.push({ key: eventKey(identify), value });
    }
    yield { topic: topics.events, messages: announced };
    yield { topic: topics.changes, messages: changes };
  }
  yield* chunks(topics.status, out.status, (computationId) => ({
    key: statusKey({ computationId, partition: p }),
    value: encodeJsonRecord({
      computationId,
      partition: p,
      live: partition.live.has(computationId),
      members: partition.membersOf(computationId),
    }),
  }));
}
