import type { Admin, Consumer } from 'kafkajs';
import type { Clock } from '../core/clock';
import { errorMessage } from '../core/errors';
import type { Logger } from '../observability/logger';
import { takeOverPoint } from './committed';
import type { ConcurrentConsumerOptions } from './consumer-options';
import type { GroupView } from './group-view';
import { partitionOf, takeOverTracker } from './handover';
import type { PartitionOffsets } from './offset-tracker';

export interface PartitionTakeOver {
  admin: Pick<Admin, 'fetchOffsets' | 'fetchTopicOffsets'>;
  group: Pick<GroupView, 'orphaned'>;
  /** The consumer's own options: its group, `doneBefore`, `fromBeginning`, logger. */
  consumer: Pick<ConcurrentConsumerOptions, 'groupId' | 'doneBefore' | 'fromBeginning' | 'logger'>;
  memberId: string | undefined;
  topic: string;
  partition: number;
  /** Whether the partition is still this member's to take over (same join, not stopping). */
  stillOurs: () => boolean;
  graceMs: number;
  clock: Clock;
}

/**
 * The tracker of a partition new to a ConcurrentConsumer: it starts from the committed offset (once
 * the old owner released it, or after the handover grace) and the holes it lists, which are handled
 * again (a seek back to the lowest); every other message below the committed offset is done. Tried
 * until it works while the partition is ours; undefined once it is not.
 */
export function takeOverPartition(options: PartitionTakeOver): Promise<PartitionOffsets | undefined> {
  const { admin, group, memberId, topic, partition } = options;
  const { groupId, doneBefore, fromBeginning = true, logger } = options.consumer;
  // Only a consumer that looks up and starts an uncommitted partition at its start has a use for it.
  const fromLogStart = doneBefore !== undefined && fromBeginning;
  return takeOverTracker({
    read: () => takeOverPoint(admin, groupId, topic, partition, fromLogStart),
    stillOurs: options.stillOurs,
    orphaned: () => group.orphaned(memberId, topic, partition),
    graceMs: options.graceMs,
    clock: options.clock,
    logger,
    topic,
    partition,
    doneBefore,
  });
}

/**
 * Fetches the partition from where its tracker goes on (PartitionOffsets.resumeAt). A seek kafkajs
 * refuses (its consumer down after a crash) is left to the next join's takeover.
 */
export function resumeFromTracker(
  consumer: Pick<Consumer, 'seek'>,
  key: string,
  tracker: PartitionOffsets,
  logger: Logger,
): void {
  const offset = tracker.resumeAt();
  if (offset === undefined) return;
  try {
    consumer.seek({ ...partitionOf(key), offset: String(offset) });
  } catch (err) {
    logger.warn({ key, err: errorMessage(err) }, 'cannot seek: the consumer is down');
  }
}
