import type { Admin, Kafka, Producer } from 'kafkajs';
import { errorMessage } from '../core/errors';
import { producerSettings } from '../kafka/client';
import { readPartition } from '../kafka/partition-reader';
import type { Logger } from '../observability/logger';
import { decodeStateRecord } from '../records/audience-state';
import type { EventCodec } from '../records/event';
import type { Definitions } from './definitions';
import { outboxRecords, type OutboxTopics } from './outbox-records';
import { AudiencePartition, type Outbox, type ProcessorTime } from './partition';
import { InputProgress, type TopicOffset } from './progress';
import { LmdbUserDisk } from './state-disk';
import type { UserState } from './user-state';
import { CachedUserStates } from './user-states';

/** Most records in one produce request of a transaction. */
const CHUNK = 2_000;

export interface UnitOptions {
  kafka: Kafka;
  admin: Admin;
  events: EventCodec;
  topics: OutboxTopics & { commands: string };
  groupId: string;
  /** `<groupId>-<partition>` is the transactional id of a partition's producer. */
  transactionTimeoutMs: number;
  /** Where the partition's store of user states goes (HOOKLINE_AUDIENCE_STATE_DIR). */
  stateDir: string;
  /** Most user states the partition holds decoded in memory; the rest are read from disk. */
  cacheUsers: number;
  logger: Logger;
}

/**
 * One partition owned by this process: its users' state (in a store on disk of its own, with a
 * bounded cache) and the transactional producer that writes it. The producer's transactional id
 * is the partition's, so a new owner (or this process restarted) fences the previous one and
 * aborts its unfinished transaction before it reads the state: what it reads is exactly what was
 * committed with the group's offsets. The store starts empty at every open and is filled from the
 * state topic; a unit whose step failed is closed (store and all) and opened again, so the store
 * never keeps a change of a transaction that did not commit. Inputs are applied batch after batch
 * and committed together by `flush` (progress.ts).
 */
export class PartitionUnit {
  private constructor(
    readonly state: AudiencePartition,
    readonly progress: InputProgress,
    private readonly users: CachedUserStates,
    private readonly producer: Producer,
    private readonly options: UnitOptions,
  ) {}

  /** The next offset of hookline.events to apply on this partition. */
  get position(): string {
    return this.progress.nextOf(this.options.topics.events) ?? '0';
  }

  static async open(partition: number, defs: Definitions, options: UnitOptions): Promise<PartitionUnit> {
    const { kafka, admin, topics, groupId } = options;
    const producer = kafka.producer({
      ...producerSettings(),
      transactionalId: `${groupId}-${partition}`,
      transactionTimeout: options.transactionTimeoutMs,
    });
    await producer.connect();
    let users: CachedUserStates | undefined;
    try {
      // Fences the previous owner and ends its open transaction (kafkajs inits lazily).
      await (await producer.transaction()).abort();
      users = new CachedUserStates({
        disk: LmdbUserDisk.open(options.stateDir, partition),
        cacheUsers: options.cacheUsers,
      });
      const state = new AudiencePartition(partition, users);
      await readPartition({
        kafka,
        admin,
        topic: topics.state,
        partition,
        groupIdPrefix: `${groupId}.load`,
        logger: options.logger,
        onRecords: (messages) => {
          for (const m of messages) {
            const key = m.key?.toString('utf8') ?? '';
            if (!m.value) {
              state.load(key, null);
              continue;
            }
            const record = decodeStateRecord(m.value);
            if (record.kind === 'partition') state.setLive(record.live);
            else state.load(key, record.state as UserState);
          }
        },
      });
      state.recount(defs);
      const committed = await Promise.all(
        [topics.events, topics.commands].map(async (topic) => ({
          topic,
          offset: await committedOrFirst(admin, groupId, topic, partition),
        })),
      );
      const unit = new PartitionUnit(state, new InputProgress(committed), users, producer, options);
      options.logger.info(
        { partition, users: state.users.size, live: state.live.size, position: unit.position },
        'audience partition loaded',
      );
      return unit;
    } catch (err) {
      users?.close();
      await producer.disconnect().catch(() => undefined);
      throw err;
    }
  }

  /**
   * Evaluates the users the inputs applied since the last flush touched (each once, after all of
   * them), and commits what they changed with their offsets: one transaction, or a plain commit of
   * the offsets (`commitOffsets`) when they changed nothing.
   */
  async flush(
    defs: Definitions,
    time: ProcessorTime,
    commitOffsets: (offsets: TopicOffset[]) => Promise<void>,
  ): Promise<void> {
    const { progress } = this;
    if (!progress.uncommitted) return;
    const out = progress.pending;
    this.state.announceEvaluated(defs, time, out);
    const offsets = progress.toCommit();
    if (out.empty) await commitOffsets(offsets);
    else await this.commit(out, time.nowMs, offsets);
    progress.committedNow();
  }

  /**
   * Writes one step atomically: the outbox's records and the consumed offsets of the group, if
   * any (so the step is done exactly once: a crash before the commit re-does all of it).
   */
  async commit(out: Outbox, nowMs: number, consumed: TopicOffset[] = []): Promise<void> {
    if (out.empty && consumed.length === 0) return;
    const transaction = await this.producer.transaction();
    try {
      for (const batch of outboxRecords(this.state, out, { ...this.options, nowMs, chunk: CHUNK }))
        await transaction.send(batch);
      if (consumed.length > 0) {
        const partition = this.state.partition;
        await transaction.sendOffsets({
          consumerGroupId: this.options.groupId,
          topics: consumed.map(({ topic, offset }) => ({ topic, partitions: [{ partition, offset }] })),
        });
      }
      await transaction.commit();
    } catch (err) {
      await transaction
        .abort()
        .catch((abortErr) =>
          this.options.logger.warn({ err: errorMessage(abortErr) }, 'audience transaction abort failed'),
        );
      throw err;
    }
  }

  async close(): Promise<void> {
    await this.producer.disconnect().catch(() => undefined);
    this.users.close();
  }
}

async function committedOrFirst(
  admin: Admin,
  groupId: string,
  topic: string,
  partition: number,
): Promise<string> {
  const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
  const offset = committed?.partitions.find((p) => p.partition === partition)?.offset;
  if (offset !== undefined && offset !== '-1') return offset;
  const watermarks = await admin.fetchTopicOffsets(topic);
  return watermarks.find((w) => w.partition === partition)?.low ?? '0';
}
