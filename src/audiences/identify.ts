import { randomUUID } from 'node:crypto';
import type { JsonObject } from '../events/json';
import type { IdentifyEvent } from '../events/types';
import type { Announcement } from './evaluate';
import type { UserState } from './user-state';

/**
 * The identify call announcing a change of audience membership or computed-trait value, shaped
 * as Segment Engage sends them: `traits: {<key>: true | false | value}` and `context.personas`
 * naming the computation, so receivers tell it from the user's own identify calls. The source id
 * stands for Engage's space id. `userId`, or `anonymousId` when that is all the user has.
 */
export function announcementIdentify(
  announcement: Announcement,
  user: Pick<UserState, 'sourceId' | 'userId' | 'anonymousId'>,
  nowMs: number,
  newMessageId: () => string = randomUUID,
): IdentifyEvent {
  const { computation, value } = announcement;
  const now = new Date(nowMs).toISOString();
  const personas: JsonObject = {
    computation_class: computation.class,
    computation_id: computation.id,
    computation_key: computation.key,
    namespace: 'spaces',
    space_id: user.sourceId,
  };
  return {
    type: 'identify',
    messageId: newMessageId(),
    ...(user.userId ? { userId: user.userId } : { anonymousId: user.anonymousId }),
    timestamp: now,
    receivedAt: now,
    sourceId: user.sourceId,
    traits: { [computation.key]: value } as JsonObject,
    context: { personas },
  };
}
