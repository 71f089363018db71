import type { Consumer } from 'kafkajs';
import type { TrackerCommit } from './handover';

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
