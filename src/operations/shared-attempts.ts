import { retryTransient } from '../core/backoff';
import { errorMessage } from '../core/errors';
import { partitionOfKey } from '../kafka/partitioner';
import type { Logger } from '../observability/logger';
import { forwardAttemptQuery } from './attempt-forward';
import { startAttemptIndex, type AttemptIndex, type AttemptIndexOptions } from './attempt-index';
import type { AttemptLog, AttemptQuery, AttemptSource, AttemptsFound } from './attempt-log';
import { joinAttemptShards, type AttemptShards } from './attempt-shards';
import { AttemptIndexUnavailableError } from './errors';

export interface SharedAttemptIndexOptions extends Omit<AttemptIndexOptions, 'partitions'> {
  /** `<prefix>.attempt-index`. */
  groupId: string;
  /** Where this process's admin API answers, for the other members (HOOKLINE_ADVERTISED_URL). */
  advertisedUrl: string;
  /** Sent with the queries passed to another member. */
  adminToken: string | undefined;
  sessionTimeoutMs: number;
  /** How a query reaches another member; `forwardAttemptQuery` unless a test says otherwise. */
  forward?: typeof forwardAttemptQuery;
}

/** The index of this process's share, and the way to every other share. */
export interface SharedAttemptIndex {
  /** Reads this process's share, or passes the query to the member keeping it. */
  source: AttemptSource;
  /** The log of this process's share (what the gauges count); undefined while it holds none. */
  readonly log: AttemptLog | undefined;
  stop(): Promise<void>;
}

/**
 * HOOKLINE_ATTEMPT_INDEX=shared: this process keeps the attempts of the partitions the group
 * gives it (attempt-shards.ts), and asks the member keeping the others. A destination's attempts
 * are all in one partition (the records are keyed by destination), so one member answers a
 * query. At each new share this process reads its partitions' window again, into a new index.
 */
export async function startSharedAttemptIndex(
  options: SharedAttemptIndexOptions,
): Promise<SharedAttemptIndex> {
  const { admin, topic, advertisedUrl } = options;
  const logger: Logger = options.logger.child({ component: 'shared-attempt-index' });
  const forward = options.forward ?? forwardAttemptQuery;
  let stopped = false;
  // A look-up or a share's start can fail for a passing reason (a broker away, or kafkajs's admin
  // answering a look-up that races another with nothing): tried again, until stopped.
  const tried = <T>(what: string, fn: () => Promise<T>) =>
    retryTransient(fn, {
      isRunning: () => !stopped,
      isRetriable: () => true,
      maxAttempts: 6,
      logger,
      context: { what },
    });
  const partitionCount = (await tried('partitions', () => admin.fetchTopicOffsets(topic))).length;
  let current: { index: AttemptIndex; partitions: ReadonlySet<number> } | undefined;
  let swaps = Promise.resolve();

  const take = (partitions: number[]) => {
    swaps = swaps.then(async () => {
      if (stopped) return;
      const same =
        (current?.partitions.size ?? 0) === partitions.length &&
        partitions.every((p) => current?.partitions.has(p));
      if (same) return; // a rebalance that left this process its share: nothing to read again
      try {
        const index =
          partitions.length > 0
            ? await tried('share', () => startAttemptIndex({ ...options, partitions }))
            : undefined;
        const previous = current;
        current = index && { index, partitions: new Set(partitions) };
        await previous?.index.stop();
        if (stopped) await index?.stop();
      } catch (err) {
        // Its queries answer 503 until the next share; the group goes on without it.
        logger.error(
          { partitions, reason: errorMessage(err) },
          'could not read the attempt index partitions',
        );
      }
    });
  };
  const shards: AttemptShards = await joinAttemptShards({ ...options, onAssigned: take, logger });

  const source: AttemptSource = {
    find: async (destinationId: string, query: AttemptQuery): Promise<AttemptsFound> => {
      const partition = partitionOfKey(destinationId, partitionCount);
      if (current?.partitions.has(partition)) return current.index.log.find(destinationId, query);
      if (shards.held().has(partition))
        throw new AttemptIndexUnavailableError('this process is reading the attempts it now keeps');
      if (query.forwarded)
        throw new AttemptIndexUnavailableError('the attempt index is moving between processes');
      for (const fresh of [false, true]) {
        const owner = await shards.ownerOf(partition, { fresh });
        if (owner === undefined || owner === advertisedUrl) continue; // rebalancing
        try {
          return await forward(owner, options.adminToken, destinationId, { ...query, forwarded: true });
        } catch (err) {
          if (fresh) throw err;
        }
      }
      throw new AttemptIndexUnavailableError(
        'no process keeps these attempts now (the group is rebalancing)',
      );
    },
  };
  return {
    source,
    get log() {
      return current?.index.log;
    },
    stop: async () => {
      stopped = true;
      await shards.stop();
      await swaps;
      await current?.index.stop();
      current = undefined;
    },
  };
}
