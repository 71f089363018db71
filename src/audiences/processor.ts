import type { Admin, Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import type { Registry } from 'prom-client';
import type { CatalogStore } from '../catalog';
import type { Clock } from '../core/clock';
import { UndecodableRecordError, errorMessage } from '../core/errors';
import type { HooklineEvent } from '../events/types';
import { startLagMonitor } from '../kafka/lag';
import { CoPartitionedAssigner } from '../kafka/co-partitioned-assigner';
import { restartAfterCrashes, stoppableRetry, type CrashRestart } from '../kafka/crash-restart';
import type { Logger } from '../observability/logger';
import { decodeCommand } from '../records/audience-state';
import type { EventCodec } from '../records/event';
import { createOnPartition } from './creation-step';
import { Definitions } from './definitions';
import { Outbox, type ProcessorTime } from './partition';
import { PartitionUnit, type UnitOptions } from './unit';
import { UnitPool } from './unit-pool';

const HOUR_MS = 3_600_000;
/** Users changed per transaction of the periodic sync. */
const SYNC_STEP_USERS = 10_000;
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
  private timer: NodeJS.Timeout | undefined;
  private flushTimer: NodeJS.Timeout | undefined;
  private soon: NodeJS.Timeout | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private lagMonitor: { stop(): void } | undefined;
  /** hookline.events is not fetched: nothing could change (see `followEvents`). */
  private eventsPaused = false;
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
    this.consumer.on(this.consumer.events.GROUP_JOIN, ({ payload }) => {
      // Another member may have owned a partition meanwhile: every unit is reloaded, and what was
      // applied and not committed is dropped (the consumer starts again from the committed offsets).
      this.assigned = [...(payload.memberAssignment[topics.events] ?? [])];
      for (const p of this.pool.open()) void this.pool.close(p);
      // A consumer restarted after a crash is new to kafkajs: it forgot the pause.
      if (this.eventsPaused) this.consumer.pause([{ topic: topics.events }]);
      this.tickSoon();
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
      this.tickSoon();
    });
  }

  async start(): Promise<void> {
    const { topics, evaluateIntervalMs } = this.options;
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: [topics.events, topics.commands], fromBeginning: true });
    await this.runConsumer();
    await this.followEventsOrLog();
    this.idleTimer = setInterval(() => void this.followEventsOrLog(), IDLE_ADVANCE_MS);
    this.timer = setInterval(() => void this.tick(), this.options.syncIntervalMs);
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
      await this.reconcile(unit);
      const defs = this.definitions();
      const time = this.time();
      const { progress } = unit;
      const out = progress.pending;
      const isEvents = topic === this.options.topics.events;
      // No computation anywhere and no user state kept: nothing an event could change, so the
      // events are not even decoded (the cost of the role on a deployment without audiences).
      const idle = isEvents && defs.all().length === 0 && unit.state.users.size === 0;
      for (const m of idle ? [] : batch.messages) {
        if (progress.isApplied(topic, m.offset)) continue;
        if (isEvents) {
          const event = await this.decodeEvent(m, partition);
          if (event) unit.state.applyEvent(event, defs, time, out);
        } else if (m.value) {
          const command = decodeCommand(m.value);
          if (!unit.state.applyCommand(command, defs, time, out))
            this.options.logger.warn(
              { partition, audienceId: command.audienceId, syncId: command.syncId, offset: m.offset },
              'audience command for no synced audience this processor knows (deleted?): dropped',
            );
        }
      }
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

  /**
   * With no audience or computed trait anywhere and no user state kept, no event can change
   * anything. Then hookline.events is not fetched at all: on a deployment without audiences that
   * second read of every event was the role's whole cost (6–8% of the end-to-end rate in the
   * bench). Instead, each owned partition's position moves to the topic's end, as reading the
   * events and skipping them would move it, and is committed as often (by the evaluation
   * interval's flush): the group's lag stays what it was. Once a computation exists, its creation
   * reads the history up to that position, and the consumer goes on from it.
   */
  private async followEvents(): Promise<void> {
    const { topics, admin, logger } = this.options;
    if (this.stopping) return;
    if (this.definitions().all().length > 0) return this.resumeEvents();
    let ends: Map<number, string>;
    try {
      ends = new Map((await admin.fetchTopicOffsets(topics.events)).map((w) => [w.partition, w.high]));
    } catch (err) {
      logger.warn({ err: errorMessage(err) }, 'could not read the end of hookline.events; tried again');
      return;
    }
    let stateLeft = false;
    for (const p of this.assigned) {
      await this.pool
        .withUnit(p, async (unit) => {
          if (this.stopping || this.definitions().all().length > 0) return;
          if (unit.state.users.size > 0) {
            stateLeft = true;
            return;
          }
          const end = ends.get(p);
          if (end === undefined) return;
          const nowMs = this.options.clock.now();
          unit.progress.applied(topics.events, end, nowMs, false);
          if (unit.progress.due(nowMs, this.options.evaluateIntervalMs)) await this.flush(unit);
        })
        .catch((err) =>
          logger.error({ partition: p, err: errorMessage(err) }, 'audience position not moved; tried again'),
        );
    }
    if (this.stopping) return;
    // User state left behind (it should not outlive its computations): the events are read.
    if (stateLeft || this.definitions().all().length > 0) return this.resumeEvents();
    if (!this.eventsPaused) {
      this.consumer.pause([{ topic: topics.events }]);
      this.eventsPaused = true;
      logger.info('no audience or computed trait: hookline.events is not read until one exists');
    }
  }

  private followEventsOrLog(): Promise<void> {
    return this.followEvents().catch((err) =>
      this.options.logger.error({ err: errorMessage(err) }, 'following hookline.events failed; tried again'),
    );
  }

  /** Reads hookline.events again, from each open unit's position (moved on while it was not read). */
  private async resumeEvents(): Promise<void> {
    if (!this.eventsPaused) return;
    this.eventsPaused = false;
    const topic = this.options.topics.events;
    for (const p of this.pool.open())
      await this.pool.ifOpen(p, async (unit) => {
        this.consumer.seek({ topic, partition: p, offset: unit.position });
      });
    this.consumer.resume([{ topic }]);
    this.options.logger.info('hookline.events is read again');
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

  /**
   * Creates new computations on the partition (history read, first members announced), drops
   * deleted ones. A creation reads the state: what was applied before it is flushed first.
   */
  private async reconcile(unit: PartitionUnit): Promise<void> {
    const defs = this.definitions();
    const dropped = new Outbox();
    unit.state.forget(defs, dropped);
    await unit.commit(dropped, this.options.clock.now());
    for (const computation of defs.all()) {
      if (unit.state.live.has(computation.id) || this.stopping) continue;
      await this.flush(unit);
      await createOnPartition(unit, defs, computation, {
        ...this.options,
        eventsTopic: this.options.topics.events,
        hourMs: HOUR_MS,
        time: () => this.time(),
        decode: (m) => this.decodeEvent(m, unit.state.partition),
      });
    }
  }

  /** The periodic sync, and the reaction to catalog changes: every owned partition in turn. */
  private async tick(): Promise<void> {
    for (const p of this.assigned) {
      if (this.stopping) return;
      await this.pool
        .withUnit(p, async (unit) => {
          await this.reconcile(unit);
          await this.flush(unit);
          const time = this.time();
          for (const out of unit.state.resync(this.definitions(), time, SYNC_STEP_USERS))
            await unit.commit(out, time.nowMs);
        })
        .catch((err) =>
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
    clearInterval(this.timer);
    clearInterval(this.flushTimer);
    clearInterval(this.idleTimer);
    this.lagMonitor?.stop();
    clearTimeout(this.soon);
    this.unsubscribe();
    await this.flushDue(true);
    this.pool.closed = true;
    await this.consumer.disconnect();
    await Promise.all(this.pool.partitions().map((p) => this.pool.close(p)));
  }
}
