import type { Consumer } from 'kafkajs';
import type { Clock } from '../core/clock';
import { errorMessage } from '../core/errors';
import { FailureStreak } from '../core/failure-streak';
import type { Logger } from '../observability/logger';
import type { PartitionTrackers, TrackerCommit } from './handover';

/**
 * Commits offsets through a kafkajs consumer and tells whether Kafka took them. kafkajs drops a
 * commit silently (no request, no error) while its runner is not running, and it is not yet while
 * it emits GROUP_JOIN at a (re)start: a commit made then must be made again.
 */
export class Committer {
  private accepted = 0;

  constructor(private readonly consumer: Consumer) {
    consumer.on(consumer.events.COMMIT_OFFSETS, () => void this.accepted++);
  }

  /** True when Kafka accepted the commits; false when kafkajs did not send them. Rejects on errors. */
  async commit(commits: readonly TrackerCommit[]): Promise<boolean> {
    const before = this.accepted;
    await this.consumer.commitOffsets(
      commits.map(({ topic, partition, commit }) => ({
        topic,
        partition,
        offset: String(commit.offset),
        metadata: commit.metadata,
      })),
    );
    return this.accepted > before;
  }
}

/** While commits keep failing, one warning per this long (each tells how many failed). */
const COMMIT_WARNING_EVERY_MS = 10_000;

export interface CommitLoopOptions {
  committer: Pick<Committer, 'commit'>;
  partitions: Pick<PartitionTrackers, 'commits' | 'committed'>;
  clock: Clock;
  logger: Logger;
  groupId: string;
  /** How soon after a message is done its commit is made (default 50 ms). */
  commitDelayMs?: number;
  stopping: () => boolean;
}

/**
 * When and what a ConcurrentConsumer commits: every partition's completed prefix (handover.ts),
 * soon after work is done or on a timer, one commit request at a time; failures told once, then
 * every COMMIT_WARNING_EVERY_MS while they go on.
 */
export class CommitLoop {
  private promptCommit: NodeJS.Timeout | undefined;
  private committing: Promise<void> = Promise.resolve();
  private readonly failures = new FailureStreak(COMMIT_WARNING_EVERY_MS);

  constructor(private readonly options: CommitLoopOptions) {}

  /** A commit shortly (coalescing the work done meanwhile), unless one is already due. */
  soon(): void {
    if (this.promptCommit || this.options.stopping()) return;
    this.promptCommit = setTimeout(() => {
      this.promptCommit = undefined;
      void this.commit();
    }, this.options.commitDelayMs ?? 50);
  }

  /**
   * Commits every partition's completed prefix, and releases the partitions given up once their
   * work is done (handover.ts). Serialised: one commit request at a time.
   */
  commit(): Promise<void> {
    this.committing = this.committing.then(() => this.commitNow());
    return this.committing;
  }

  /** No commit pending any more (a last `commit()` may follow). */
  cancelSoon(): void {
    clearTimeout(this.promptCommit);
  }

  private async commitNow(): Promise<void> {
    const { partitions, logger, groupId, clock } = this.options;
    const commits = partitions.commits(clock.now());
    if (commits.length === 0) return;
    try {
      if (await this.options.committer.commit(commits)) {
        partitions.committed(commits);
        const streak = this.failures.succeeded();
        if (streak !== undefined)
          logger.info({ groupId, failedCommits: streak }, 'offset commits accepted again');
        for (const c of commits)
          if (c.release) logger.debug({ key: c.key, offset: c.commit.offset }, 'partition released');
      } else this.soon(); // kafkajs was not running yet (a join at its start): again shortly
    } catch (err) {
      // A rebalance in progress, typically, or Kafka away; the next commit carries the same
      // offsets. Retried every commit interval: the first failure is told, then one line a while.
      const failedCommits = this.failures.failed(clock.now());
      if (failedCommits !== undefined)
        logger.warn({ err: errorMessage(err), groupId, failedCommits }, 'offset commit failed');
    }
  }
}
