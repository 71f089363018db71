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
 * and on hookline.audience-changes; each changed computation's status.
 */
export function outboxRecords(
  partition: AudiencePartition,
  out: Outbox,
  options: { topics: OutboxTopics; events: EventCodec; nowMs: number; newMessageId?: () => string },
): TopicBatch[] {
  const { topics, events, nowMs } = options;
  const p = partition.partition;
  const state: Message[] = [];
  for (const [key, user] of out.users) {
    state.push({
      key,
      partition: p,
      value: user ? encodeJsonRecord({ kind: 'user', state: user as StoredUserState }) : null,
    });
  }
  if (out.partitionChanged) {
    state.push({
      key: partitionStateKey(p),
      partition: p,
      value: encodeJsonRecord({ kind: 'partition', partition: p, live: [...partition.live] }),
    });
  }
  const announced: Message[] = [];
  const changes: Message[] = [];
  for (const a of out.announcements) {
    const identify = announcementIdentify(a, a.user, nowMs, options.newMessageId);
    const value = events.encode(identify);
    announced.push({ key: eventKey(identify), partition: p, value });
    changes.push({ key: eventKey(identify), value });
  }
  const status: Message[] = [...out.status].map((computationId) => ({
    key: statusKey({ computationId, partition: p }),
    value: encodeJsonRecord({
      computationId,
      partition: p,
      live: partition.live.has(computationId),
      members: partition.membersOf(computationId),
    }),
  }));
  return [
    { topic: topics.state, messages: state },
    { topic: topics.events, messages: announced },
    { topic: topics.changes, messages: changes },
    { topic: topics.status, messages: status },
  ].filter((b) => b.messages.length > 0);
}
