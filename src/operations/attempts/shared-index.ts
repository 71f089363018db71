import { retryTransient } from '../../core/backoff';
import { errorMessage } from '../../core/errors';
import { partitionOfKey } from '../../kafka/partitioner';
import type { Logger } from '../../observability/logger';
import { forwardAttemptQuery } from './forward';
import { newAttemptLog, startAttemptIndex, type AttemptIndex, type AttemptIndexOptions } from './topic-index';
import type { AttemptLog, AttemptQuery, AttemptSource, AttemptsFound } from './log';
import { joinAttemptShards, type AttemptShards } from './shards';
import { AttemptIndexUnavailableError } from '../errors';

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
  /** The log of this process's share (what the gauges count); empty while it holds none. */
  readonly log: AttemptLog;
  stop(): Promise<void>;
}

/**
 * HOOKLINE_ATTEMPT_INDEX=shared: this process keeps the attempts of the partitions the group
 * gives it (shards.ts), and asks the member keeping the others. A destination's attempts
 * are all in one partition (the records are keyed by destination), so one member answers a
 * query. At each new share this process reads the window of the partitions new to it, and goes
 * on with the attempts it already keeps of those it keeps.
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
  // One log for the process's life: what a new share keeps of the last goes on in it.
  const log = newAttemptLog(options);
  /** The index of this process's share, and the partitions of it read far enough to answer for. */
  let current: { index: AttemptIndex; share: ReadonlySet<number>; answered: ReadonlySet<number> } | undefined;
  let swaps = Promise.resolve();

  const take = (partitions: number[]) => {
    swaps = swaps.then(async () => {
      if (stopped) return;
      const previous = current;
      const share = new Set(partitions);
      const kept = new Set(partitions.filter((p) => previous?.share.has(p)));
      if (previous && kept.size === share.size && kept.size === previous.share.size) return; // same share
      const startAt = await keepWhatStays(previous, kept);
      try {
        const index =
          partitions.length > 0
            ? await tried('share', () =>
                startAttemptIndex({ ...options, partitions, resume: { log, startAt } }),
              )
            : undefined;
        if (stopped) await index?.stop();
        // The kept partitions are answered as before, those new here once their window is read.
        current = index && { index, share, answered: current?.answered ?? new Set() };
        index?.whenCaughtUp().then(
          () => {
            if (current?.index === index) current = { index, share, answered: share };
          },
          (err: unknown) => {
            if (!stopped && current?.index === index)
              logger.error({ partitions, reason: errorMessage(err) }, 'the attempt index stopped reading');
          },
        );
      } catch (err) {
        // Its queries answer 503 until the next share; the group goes on without it.
        current = undefined;
        log.forget(() => true);
        logger.error(
          { partitions, reason: errorMessage(err) },
          'could not read the attempt index partitions',
        );
      }
    });
  };
  /**
   * Stops reading the previous share and forgets the attempts of its partitions that the new one
   * leaves; returns where the reading of those it keeps stopped, for the new share's index to go
   * on from there instead of reading their window again. Meanwhile the previous index answers
   * for the kept partitions alone.
   */
  const keepWhatStays = async (
    previous: typeof current,
    kept: ReadonlySet<number>,
  ): Promise<Map<number, string>> => {
    if (!previous) return new Map();
    await previous.index.stop();
    const answered = new Set([...previous.answered].filter((p) => kept.has(p)));
    current = kept.size > 0 ? { index: previous.index, share: kept, answered } : undefined;
    const startAt = new Map([...previous.index.nextOffsets()].filter(([p]) => kept.has(p)));
    const forgotten = log.forget((d) => !kept.has(partitionOfKey(d, partitionCount)));
    logger.info({ kept: [...kept], forgotten }, 'attempt index share changed: kept partitions go on');
    return startAt;
  };
  const shards: AttemptShards = await joinAttemptShards({ ...options, onAssigned: take, logger });

  const source: AttemptSource = {
    find: async (destinationId: string, query: AttemptQuery): Promise<AttemptsFound> => {
      const partition = partitionOfKey(destinationId, partitionCount);
      if (current?.answered.has(partition)) return log.find(destinationId, query);
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
    log,
    stop: async () => {
      stopped = true;
      await shards.stop();
      await swaps;
      await current?.index.stop();
      current = undefined;
    },
  };
}
