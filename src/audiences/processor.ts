import type { Admin, Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import type { CatalogStore } from '../catalog';
import type { Clock } from '../core/clock';
import { UndecodableRecordError, errorMessage } from '../core/errors';
import type { HooklineEvent } from '../events/types';
import { CoPartitionedAssigner } from '../kafka/co-partitioned-assigner';
import { readPartition } from '../kafka/partition-reader';
import type { Logger } from '../observability/logger';
import { decodeCommand } from '../records/audience-state';
import type { EventCodec } from '../records/event';
import { Creation, needsHistory, planCreation } from './creation';
import { Definitions } from './definitions';
import { Outbox, type ProcessorTime } from './partition';
import { PartitionUnit, type UnitOptions } from './unit';

const HOUR_MS = 3_600_000;
/** Users changed per transaction of the periodic sync. */
const SYNC_STEP_USERS = 10_000;

export interface AudienceProcessorOptions {
  kafka: Kafka;
  admin: Admin;
  events: EventCodec;
  catalog: CatalogStore;
  topics: UnitOptions['topics'];
  /** `<prefix>.audiences`: the consumer group, and the start of each partition's transactional id. */
  groupId: string;
  syncIntervalMs: number;
  bucketMs: number;
  /** Where the owned partitions' stores of user states go (HOOKLINE_AUDIENCE_STATE_DIR). */
  stateDir: string;
  /** Most user states held decoded in memory, shared evenly by the owned partitions. */
  cacheUsers: number;
  sessionTimeoutMs: number;
  clock: Clock;
  logger: Logger;
}

/**
 * The audience processor (role `audiences`): a consumer group on hookline.events and
 * hookline.audience-commands (partition n of both to one member) keeping the state of its
 * partitions' users (on disk, a bounded number in memory), announcing changes with identify calls. Each step (a fetched batch,
 * a creation, a sync) is one Kafka transaction of its partition: state, identifies, status and
 * the consumed offset commit together or not at all.
 */
export class AudienceProcessor {
  private readonly consumer: Consumer;
  private readonly units = new Map<number, PartitionUnit>();
  private readonly locks = new Map<number, Promise<void>>();
  private assigned: number[] = [];
  private defs: Definitions | undefined;
  private timer: NodeJS.Timeout | undefined;
  private soon: NodeJS.Timeout | undefined;
  private stopping = false;
  private readonly unsubscribe: () => void;

  constructor(private readonly options: AudienceProcessorOptions) {
    const { kafka, groupId, topics } = options;
    this.consumer = kafka.consumer({
      groupId,
      sessionTimeout: options.sessionTimeoutMs,
      maxWaitTimeInMs: 100,
      allowAutoTopicCreation: false,
      partitionAssigners: [CoPartitionedAssigner],
    });
    this.consumer.on(this.consumer.events.GROUP_JOIN, ({ payload }) => {
      // Another member may have owned a partition meanwhile: every unit is reloaded.
      this.assigned = [...(payload.memberAssignment[topics.events] ?? [])];
      for (const p of [...this.units.keys()]) void this.locked(p, () => this.closeUnit(p));
      this.tickSoon();
    });
    this.unsubscribe = options.catalog.onChange((change) => {
      if (change.kind !== 'audience' && change.kind !== 'computed_trait') return;
      this.defs = undefined;
      this.tickSoon();
    });
  }

  async start(): Promise<void> {
    const { topics } = this.options;
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: [topics.events, topics.commands], fromBeginning: true });
    await this.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: 4,
      eachBatch: (payload) => this.onBatch(payload),
    });
    this.timer = setInterval(() => void this.tick(), this.options.syncIntervalMs);
  }

  private definitions(): Definitions {
    const { audiences } = this.options.catalog;
    return (this.defs ??= new Definitions(audiences.audiences(), audiences.computedTraits()));
  }

  private time(): ProcessorTime {
    return { nowMs: this.options.clock.now(), hourMs: HOUR_MS, bucketMs: this.options.bucketMs };
  }

  private async onBatch({ batch, resolveOffset, heartbeat, isRunning, isStale }: EachBatchPayload) {
    const last = batch.messages[batch.messages.length - 1];
    if (!last) return;
    await this.withUnit(batch.partition, async (unit) => {
      if (!isRunning() || isStale() || this.stopping) return;
      await this.reconcile(unit);
      const defs = this.definitions();
      const time = this.time();
      const out = new Outbox();
      const isEvents = batch.topic === this.options.topics.events;
      // No computation anywhere and no user state kept: nothing an event could change, so the
      // events are not even decoded (the cost of the role on a deployment without audiences).
      const idle = isEvents && defs.all().length === 0 && unit.state.users.size === 0;
      for (const m of idle ? [] : batch.messages) {
        if (isEvents) {
          const event = await this.decodeEvent(m, batch.partition);
          if (event) unit.state.applyEvent(event, defs, time, out);
        } else if (m.value) {
          unit.state.applyCommand(decodeCommand(m.value), defs, time, out);
        }
      }
      unit.state.announceEvaluated(defs, time, out);
      const next = String(BigInt(last.offset) + 1n);
      // Nothing to write (no source of these events has a computation): a plain offset commit, as
      // exact as the transaction's and a third of its requests. Otherwise state and offset together.
      if (out.empty)
        await this.consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: next }]);
      else await unit.commit(out, time.nowMs, { topic: batch.topic, offset: next });
      if (isEvents) unit.position = next;
      resolveOffset(last.offset);
    });
    await heartbeat();
  }

  private async decodeEvent(m: KafkaMessage, partition: number): Promise<HooklineEvent | undefined> {
    if (!m.value) return undefined;
    try {
      return await this.options.events.decode(m.value);
    } catch (err) {
      if (!(err instanceof UndecodableRecordError)) throw err;
      this.options.logger.warn(
        { partition, offset: m.offset, reason: err.message },
        'skipping undecodable event',
      );
      return undefined;
    }
  }

  /** Creates new computations on the partition (history read, first members announced), drops deleted ones. */
  private async reconcile(unit: PartitionUnit): Promise<void> {
    const defs = this.definitions();
    const dropped = new Outbox();
    unit.state.forget(defs, dropped);
    await unit.commit(dropped, this.options.clock.now());
    for (const computation of defs.all()) {
      if (unit.state.live.has(computation.id) || this.stopping) continue;
      const plan = planCreation(unit.state, defs, computation, HOUR_MS);
      const out = new Outbox();
      const creation = new Creation(unit.state, plan, out);
      creation.start();
      const time = this.time();
      if (needsHistory(plan)) {
        await readPartition({
          kafka: this.options.kafka,
          admin: this.options.admin,
          topic: this.options.topics.events,
          partition: unit.state.partition,
          end: unit.position,
          groupIdPrefix: `${this.options.groupId}.history`,
          logger: this.options.logger,
          onRecords: async (messages) => {
            for (const m of messages) {
              const event = await this.decodeEvent(m, unit.state.partition);
              if (event) creation.apply(event, time);
            }
          },
        });
      }
      creation.finish(this.time());
      await unit.commit(out, time.nowMs);
      this.options.logger.info(
        {
          computationId: computation.id,
          partition: unit.state.partition,
          members: unit.state.membersOf(computation.id),
        },
        'audience computation live on partition',
      );
    }
  }

  /** The periodic sync, and the reaction to catalog changes: every owned partition in turn. */
  private async tick(): Promise<void> {
    for (const p of this.assigned) {
      if (this.stopping) return;
      await this.withUnit(p, async (unit) => {
        await this.reconcile(unit);
        const time = this.time();
        for (const out of unit.state.resync(this.definitions(), time, SYNC_STEP_USERS))
          await unit.commit(out, time.nowMs);
      }).catch((err) =>
        this.options.logger.error(
          { partition: p, err: errorMessage(err) },
          'audience sync failed; retried next time',
        ),
      );
    }
  }

  private tickSoon(): void {
    if (this.soon || this.stopping) return;
    this.soon = setTimeout(() => {
      this.soon = undefined;
      void this.tick();
    }, 50);
  }

  /** Runs work on a partition's unit (opened if needed), one at a time per partition. */
  private withUnit(partition: number, work: (unit: PartitionUnit) => Promise<void>): Promise<void> {
    return this.locked(partition, async () => {
      if (this.stopping) return;
      let unit = this.units.get(partition);
      if (!unit) {
        unit = await PartitionUnit.open(partition, this.definitions(), {
          ...this.options,
          transactionTimeoutMs: 60_000,
          cacheUsers: Math.floor(this.options.cacheUsers / Math.max(1, this.assigned.length)),
        });
        this.units.set(partition, unit);
      }
      try {
        await work(unit);
      } catch (err) {
        // Memory may hold a half-applied step that was not committed: reload from the topics.
        await this.closeUnit(partition);
        throw err;
      }
    });
  }

  private locked(partition: number, work: () => Promise<void>): Promise<void> {
    const previous = this.locks.get(partition) ?? Promise.resolve();
    const current = previous.then(work, work);
    const settled = current.catch(() => undefined);
    this.locks.set(partition, settled);
    void settled.then(() => {
      if (this.locks.get(partition) === settled) this.locks.delete(partition);
    });
    return current;
  }

  private async closeUnit(partition: number): Promise<void> {
    const unit = this.units.get(partition);
    this.units.delete(partition);
    await unit?.close();
  }

  /** Member counts of this process's partitions (tests, diagnostics). */
  ownedPartitions(): number[] {
    return [...this.units.keys()];
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    clearTimeout(this.soon);
    this.unsubscribe();
    await this.consumer.disconnect();
    // A unit being opened now is not in `units` yet: its partition's lock is, and closing after it
    // closes that unit too (its producer and store would otherwise outlive the processor).
    const partitions = new Set([...this.units.keys(), ...this.locks.keys()]);
    await Promise.all([...partitions].map((p) => this.locked(p, () => this.closeUnit(p))));
  }
}
