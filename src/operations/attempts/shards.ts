import type { Admin, Consumer, GroupDescription, Kafka, PartitionAssigner } from 'kafkajs';
import { AssignerProtocol, PartitionAssigners } from '../../kafka/kafkajs';
import type { Clock } from '../../core/clock';
import { errorMessage } from '../../core/errors';
import { restartAfterCrashes, stoppableRetry } from '../../kafka/crash-restart';
import { FETCH_WAIT_MS } from '../../kafka/follower';
import { groupTimings } from '../../kafka/group-timings';
import { advertisedUrlOf, stickyAssigner } from '../../kafka/sticky-assigner';
import type { Logger } from '../../observability/logger';

/**
 * HOOKLINE_ATTEMPT_INDEX=shared: the processes keeping the attempt index share the partitions of
 * `<prefix>.attempts` out between them through a consumer group of their own
 * (`<prefix>.attempt-index`), each reading only its share. A member says in its group metadata
 * where its admin API answers (HOOKLINE_ADVERTISED_URL); any process finds the member holding a
 * partition by describing the group, and passes it the queries for that partition.
 *
 * The group only shares the partitions out: its consumer never fetches (every partition it is
 * given is paused) and never commits. Its assignment is sticky (see the protocols below). Each
 * member reads its share with a follower of its own, from the attempt index's window
 * (topic-index.ts).
 */

/**
 * The group's protocols. Sticky: a member keeps the partitions it holds when another joins or
 * leaves, so it goes on with the attempts it already read (shared-index.ts); its join metadata
 * tells those partitions and its advertised URL. Round robin, with the URL alone as the metadata:
 * the only protocol of the first version, still offered so that a group of both versions (a
 * rolling upgrade) agrees on it; the group then moves to the sticky one once every member offers it.
 */
export const SHARD_PROTOCOL = 'HooklineAttemptShards';
export const STICKY_SHARD_PROTOCOL = 'HooklineAttemptShardsSticky';

/** This member's assigners, the sticky one first (preferred). */
export function shardAssigners(
  topic: string,
  advertisedUrl: string,
  held: () => ReadonlySet<number>,
): PartitionAssigner[] {
  return [
    stickyAssigner(
      () => [...held()].map((partition) => ({ topic, partition })),
      () => [],
      { name: STICKY_SHARD_PROTOCOL, advertisedUrl },
    ),
    advertisingAssigner(advertisedUrl),
  ];
}

/**
 * kafkajs's round robin over the members, with the member's advertised URL in the metadata it
 * sends when it joins: the group's description then says who holds what, and where it answers.
 */
export function advertisingAssigner(advertisedUrl: string): PartitionAssigner {
  return (config) => {
    const roundRobin = PartitionAssigners.roundRobin(config);
    return {
      name: SHARD_PROTOCOL,
      version: 1,
      assign: (group) => roundRobin.assign(group),
      protocol: ({ topics }) => ({
        name: SHARD_PROTOCOL,
        metadata: AssignerProtocol.MemberMetadata.encode({
          version: 1,
          topics,
          userData: Buffer.from(advertisedUrl, 'utf8'),
        }),
      }),
    };
  };
}

/**
 * The member holding each partition of `topic`, by its advertised URL, from the group's
 * description; undefined while the group is not stable (rebalancing, or empty).
 */
export function ownersFromDescription(
  group: GroupDescription,
  topic: string,
): Map<number, string> | undefined {
  const sticky = group.protocol === STICKY_SHARD_PROTOCOL;
  if (group.state !== 'Stable' || (!sticky && group.protocol !== SHARD_PROTOCOL)) return undefined;
  const owners = new Map<number, string>();
  for (const member of group.members) {
    const url = sticky
      ? advertisedUrlOf(member.memberMetadata)
      : AssignerProtocol.MemberMetadata.decode(member.memberMetadata)?.userData.toString('utf8');
    const assignment = AssignerProtocol.MemberAssignment.decode(member.memberAssignment);
    if (!url) continue;
    for (const partition of assignment?.assignment[topic] ?? []) owners.set(partition, url);
  }
  return owners;
}

export interface AttemptShardsOptions {
  kafka: Kafka;
  admin: Admin;
  /** `<prefix>.attempts`. */
  topic: string;
  /** `<prefix>.attempt-index`. */
  groupId: string;
  /** Where this process's admin API answers, for the other members. */
  advertisedUrl: string;
  /** HOOKLINE_KAFKA_SESSION_TIMEOUT: how soon a member that died loses its partitions. */
  sessionTimeoutMs: number;
  /** Told of each new share of partitions (also the first), in order. */
  onAssigned(partitions: number[]): void;
  clock: Clock;
  logger: Logger;
}

/** How long a description of the group is used before it is asked for again. */
export const OWNERS_TTL_MS = 5_000;

export interface AttemptShards {
  /** The partitions this process holds now. */
  held(): ReadonlySet<number>;
  /** The advertised URL of the member holding `partition`, or undefined when none does yet. */
  ownerOf(partition: number, options?: { fresh?: boolean }): Promise<string | undefined>;
  stop(): Promise<void>;
}

export async function joinAttemptShards(options: AttemptShardsOptions): Promise<AttemptShards> {
  const { kafka, admin, topic, groupId, clock } = options;
  const logger = options.logger.child({ component: 'attempt-shards', groupId });
  let held: ReadonlySet<number> = new Set();
  let owners: { atMs: number; map: Map<number, string> } | undefined;

  let stopped = false;
  const consumer: Consumer = kafka.consumer({
    groupId,
    partitionAssigners: shardAssigners(topic, options.advertisedUrl, () => held),
    ...groupTimings(options.sessionTimeoutMs),
    // With every partition paused it fetches nothing: it waits this long, then heartbeats.
    maxWaitTimeInMs: FETCH_WAIT_MS,
    allowAutoTopicCreation: false,
    retry: stoppableRetry(() => stopped),
  });
  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
    const partitions = [...(payload.memberAssignment[topic] ?? [])].sort((a, b) => a - b);
    // The group's consumer only holds partitions; each member's follower reads them.
    if (partitions.length > 0) consumer.pause([{ topic, partitions }]);
    held = new Set(partitions);
    owners = undefined;
    logger.info({ partitions }, 'attempt index partitions assigned');
    options.onAssigned(partitions);
  });
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    // One kafkajs restarts itself (its retries ran out: Kafka away); another is restarted below.
    if (payload.restart)
      logger.error({ err: payload.error }, 'attempt shards consumer crashed; kafkajs restarts it');
  });
  const run = () => consumer.run({ autoCommit: false, eachBatch: async () => {} });
  // A crash kafkajs does not restart from: join again (the GROUP_JOIN above pauses what it gets).
  const crashRestart = restartAfterCrashes({
    consumer,
    stopping: () => stopped,
    run,
    context: { groupId },
    logger,
  });

  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: false });
    await run();
  } catch (err) {
    stopped = true;
    await consumer.disconnect();
    throw err;
  }

  const describe = async (): Promise<Map<number, string> | undefined> => {
    try {
      const { groups } = await admin.describeGroups([groupId]);
      return groups[0] && ownersFromDescription(groups[0], topic);
    } catch (err) {
      logger.warn({ reason: errorMessage(err) }, 'could not describe the attempt index group');
      return undefined;
    }
  };

  return {
    held: () => held,
    ownerOf: async (partition, { fresh = false } = {}) => {
      const nowMs = clock.now();
      if (fresh || !owners || nowMs - owners.atMs > OWNERS_TTL_MS) {
        const map = await describe();
        owners = map && { atMs: nowMs, map };
      }
      return owners?.map.get(partition);
    },
    stop: () => {
      stopped = true;
      crashRestart.cancel();
      return consumer.disconnect();
    },
  };
}
