import type { Admin, Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import type { Registry } from 'prom-client';
import type { CatalogStore } from '../catalog';
import type { Clock } from '../core/clock';
import { errorMessage } from '../core/errors';
import type { HooklineEvent } from '../events/types';
import { startLagMonitor } from '../kafka/lag';
import { CoPartitionedAssigner } from '../kafka/co-partitioned-assigner';
import { restartAfterCrashes, stoppableRetry, type CrashRestart } from '../kafka/crash-restart';
import type { Logger } from '../observability/logger';
import type { EventCodec } from '../records/event';
import { ComputationSync } from './computation-sync';
import { Definitions } from './definitions';
import { EventsFollower } from './events-follower';
import { applyInputs, decodeEventOrSkip } from './inputs';
import type { ProcessorTime } from './partition';
import { PartitionUnit, type UnitOptions } from './unit';
import { UnitPool } from './unit-pool';

const HOUR_MS = 3_600_000;
/**
 * Most users a partition's applied inputs may touch before they are evaluated and committed,
 * interval or not: bounds what a flush holds (their keys) and writes in one transaction.
 */
const FLUSH_USERS = 10_000;
/** How often an idle processor moves its position on hookline.events to the topic's end. */
const IDLE_ADVANCE_MS = 1_000;

export interface AudienceProcessorOptions {
  kafka: Kafka;
  admin: Admin;
  events: EventCodec;
  catalog: CatalogStore;
  topics: UnitOptions['topics'];
  /** `<prefix>.audiences`: the consumer group, and the start of each partition's transactional id. */
  groupId: string;
  syncIntervalMs: number;
  /**
   * How long inputs are applied before the users they touched are evaluated and the whole is
   * committed (HOOKLINE_AUDIENCE_EVALUATE_INTERVAL); 0: after every fetched batch.
   */
  evaluateIntervalMs: number;
  bucketMs: number;
  /** Where the owned partitions' stores of user states go (HOOKLINE_AUDIENCE_STATE_DIR). */
  stateDir: string;
  /** Most user states held decoded in memory, shared evenly by the owned partitions. */
  cacheUsers: number;
  sessionTimeoutMs: number;
  /** Where `hookline_consumer_lag` of the group's owned partitions goes; none without. */
  metrics?: Registry;
  clock: Clock;
  logger: Logger;
}

/**
 * The audience processor (role `audiences`): a consumer group on hookline.events and
 * hookline.audience-commands (partition n of both to one member) keeping the state of its
 * partitions' users (on disk, a bounded number in memory), announcing changes with identify calls.
 * Inputs are applied as they are fetched; every `evaluateIntervalMs` (a flush) the users they
 * touched are evaluated once and state, identifies, status and the consumed offsets commit in one
 * Kafka transaction of the partition, together or not at all. A creation and a sync are
 * transactions of their own, after a flush.
 */
export class AudienceProcessor {
  private readonly consumer: Consumer;
  private readonly pool: UnitPool;
  private assigned: number[] = [];
  private defs: Definitions | undefined;
  private flushTimer: NodeJS.Timeout | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private lagMonitor: { stop(): void } | undefined;
  /** Skips hookline.events while no computation exists (events-follower.ts). */
  private readonly follower: EventsFollower;
  /** New and deleted computations, the periodic sync (computation-sync.ts). */
  private readonly sync: ComputationSync;
  private stopping = false;
  private readonly unsubscribe: () => void;
  private readonly crashRestart: CrashRestart;

  constructor(private readonly options: AudienceProcessorOptions) {
    const { kafka, groupId, topics } = options;
    this.consumer = kafka.consumer({
      groupId,
      sessionTimeout: options.sessionTimeoutMs,
      maxWaitTimeInMs: 100,
      allowAutoTopicCreation: false,
      partitionAssigners: [CoPartitionedAssigner],
      retry: stoppableRetry(() => this.stopping),
    });
    this.pool = new UnitPool({
      open: (partition) =>
        PartitionUnit.open(partition, this.definitions(), {
          ...this.options,
          transactionTimeoutMs: 60_000,
          cacheUsers: Math.floor(this.options.cacheUsers / Math.max(1, this.assigned.length)),
        }),
      rewind: (partition, offsets) => {
        for (const { topic, offset } of offsets) this.consumer.seek({ topic, partition, offset });
      },
      logger: options.logger,
    });
    // What the events follower and the computation sync both work with.
    const units = {
      pool: this.pool,
      assigned: () => this.assigned,
      definitions: () => this.definitions(),
      flush: (unit: PartitionUnit) => this.flush(unit),
      stopping: () => this.stopping,
      clock: options.clock,
      logger: options.logger,
    };
    this.follower = new EventsFollower({
      ...units,
      consumer: this.consumer,
      admin: options.admin,
      eventsTopic: topics.events,
      evaluateIntervalMs: options.evaluateIntervalMs,
    });
    this.sync = new ComputationSync({
      ...units,
      time: () => this.time(),
      creation: { ...options, eventsTopic: topics.events, hourMs: HOUR_MS },
      decode: (m, partition) => this.decodeEvent(m, partition),
      syncIntervalMs: options.syncIntervalMs,
    });
    this.consumer.on(this.consumer.events.GROUP_JOIN, ({ payload }) => {
      // Another member may have owned a partition meanwhile: every unit is reloaded, and what was
      // applied and not committed is dropped (the consumer starts again from the committed offsets).
      this.assigned = [...(payload.memberAssignment[topics.events] ?? [])];
      for (const p of this.pool.open()) void this.pool.close(p);
      // A consumer restarted after a crash is new to kafkajs: it forgot the pause.
      this.follower.pauseAgain();
      this.sync.soon();
    });
    // A crash kafkajs does not restart from: join again (the GROUP_JOIN above reloads the units).
    this.crashRestart = restartAfterCrashes({
      consumer: this.consumer,
      stopping: () => this.stopping,
      run: () => this.runConsumer(),
      context: { groupId },
      logger: options.logger,
    });
    this.unsubscribe = options.catalog.onChange((change) => {
      if (change.kind !== 'audience' && change.kind !== 'computed_trait') return;
      this.defs = undefined;
      this.sync.soon();
    });
  }

  async start(): Promise<void> {
    const { topics, evaluateIntervalMs } = this.options;
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: [topics.events, topics.commands], fromBeginning: true });
    await this.runConsumer();
    await this.follower.follow();
    this.idleTimer = setInterval(() => void this.follower.follow(), IDLE_ADVANCE_MS);
    this.sync.start();
    const { admin, groupId, metrics, logger } = this.options;
    if (metrics) {
      this.lagMonitor = startLagMonitor({
        admin,
        groupId,
        // Partition n of both topics (CoPartitionedAssigner).
        assigned: () =>
          this.assigned.flatMap((partition) =>
            [topics.events, topics.commands].map((topic) => ({ topic, partition })),
          ),
        metrics,
        logger,
      });
    }
    if (evaluateIntervalMs > 0) {
      const checkMs = Math.min(1_000, Math.max(10, evaluateIntervalMs / 4));
      this.flushTimer = setInterval(() => void this.flushDue(), checkMs);
    }
  }

  /** Runs the kafkajs consumer (at start, and again after a crash: crash-restart.ts). */
  private runConsumer(): Promise<void> {
    return this.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: 4,
      eachBatch: (payload) => this.onBatch(payload),
    });
  }

  private definitions(): Definitions {
    const { audiences } = this.options.catalog;
    return (this.defs ??= new Definitions(audiences.audiences(), audiences.computedTraits()));
  }

  private time(): ProcessorTime {
    return { nowMs: this.options.clock.now(), hourMs: HOUR_MS, bucketMs: this.options.bucketMs };
  }

  /** Applies a fetched batch; evaluated and committed by the next flush (at once without an interval). */
  private async onBatch({ batch, resolveOffset, heartbeat, isRunning, isStale }: EachBatchPayload) {
    const last = batch.messages[batch.messages.length - 1];
    if (!last) return;
    const { topic, partition } = batch;
    await this.pool.withUnit(partition, async (unit) => {
      if (!isRunning() || isStale() || this.stopping) return;
      await this.sync.reconcile(unit);
      const defs = this.definitions();
      const time = this.time();
      const { progress } = unit;
      const out = progress.pending;
      await applyInputs(unit, topic, batch.messages, {
        eventsTopic: this.options.topics.events,
        defs,
        time,
        decode: (m) => this.decodeEvent(m, partition),
        logger: this.options.logger,
      });
      const changed = !out.empty || out.evaluate.size > 0;
      progress.applied(topic, String(BigInt(last.offset) + 1n), time.nowMs, changed);
      resolveOffset(last.offset);
      this.options.logger.debug(
        { partition, topic, next: progress.nextOf(topic), users: out.evaluate.size },
        'audience inputs applied, not evaluated yet',
      );
      if (
        progress.due(time.nowMs, this.options.evaluateIntervalMs) ||
        Math.max(out.evaluate.size, out.users.size) >= FLUSH_USERS
      )
        await this.flush(unit);
    });
    await heartbeat();
  }

  /** Evaluates and commits what the unit applied since its last flush. */
  private flush(unit: PartitionUnit): Promise<void> {
    const partition = unit.state.partition;
    return unit.flush(this.definitions(), this.time(), (offsets) =>
      this.consumer.commitOffsets(offsets.map(({ topic, offset }) => ({ topic, partition, offset }))),
    );
  }

  /**
   * The evaluation interval: every open unit whose flush is due (progress.ts `due`; `all`: every
   * unit with inputs applied since its last flush, as a stop does).
   */
  private async flushDue(all = false): Promise<void> {
    const intervalMs = all ? 0 : this.options.evaluateIntervalMs;
    const flushIfDue = async (unit: PartitionUnit) => {
      if (unit.progress.due(this.options.clock.now(), intervalMs)) await this.flush(unit);
    };
    await Promise.all(
      this.pool
        .open()
        .map((p) =>
          this.pool
            .ifOpen(p, flushIfDue)
            .catch((err) =>
              this.options.logger.error(
                { partition: p, err: errorMessage(err) },
                'audience flush failed; its inputs are applied again',
              ),
            ),
        ),
    );
  }

  private decodeEvent(m: KafkaMessage, partition: number): Promise<HooklineEvent | undefined> {
    return decodeEventOrSkip(this.options.events, m, partition, this.options.logger);
  }

  /** Partitions whose unit is open in this process (tests, diagnostics). */
  ownedPartitions(): number[] {
    return this.pool.open();
  }

  /**
   * Stops after committing what was applied (a graceful stop leaves nothing to apply again),
   * then leaves the group and closes every unit, one being opened included.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.crashRestart.cancel();
    clearInterval(this.flushTimer);
    clearInterval(this.idleTimer);
    this.lagMonitor?.stop();
    this.sync.stop();
    this.unsubscribe();
    await this.flushDue(true);
    this.pool.closed = true;
    await this.consumer.disconnect();
    await Promise.all(this.pool.partitions().map((p) => this.pool.close(p)));
  }
}
