import type { Admin, Consumer, EachBatchPayload } from 'kafkajs';
import { systemClock, type Clock } from '../core/clock';
import { sleep } from '../core/backoff';
import { errorMessage } from '../core/errors';
import { startLagMonitor } from './lag';
import { PartitionOffsets } from './offset-tracker';
import { HANDOVER_GRACE_MS, PartitionTrackers, partitionOf } from './handover';
import { resumeFromTracker, takeOverPartition } from './takeover';
import { CommitLoop, Committer } from './committer';
import { restartAfterCrashes, type CrashRestart } from './crash-restart';
import { handleMessage } from './handle-message';
import { GroupView } from './group-view';
import { DuePauses } from './due-pauses';
import { InFlight } from './in-flight';
import { KeyChains } from './key-chains';
import {
  kafkajsConsumerConfig,
  type ConcurrentConsumerOptions,
  type ConsumedMessage,
} from './consumer-options';

export type {
  ConcurrentConsumerOptions,
  ConsumedMessage,
  HoldBack,
  MessageHandler,
} from './consumer-options';

/**
 * A consumer that works on many messages at once (no head-of-line blocking: a slow message does
 * not hold back the ones after it) and commits per partition one past the last message done, the
 * messages below it still in flight listed as holes in the commit's metadata (offset-tracker.ts,
 * commit-holes.ts): a crash re-delivers work in flight or not committed yet, never skips. How a
 * partition changes hands: handover.ts. Out of the group (a kafkajs crash, until the next join),
 * work not started yet does not start (ConsumedMessage.held).
 */
export class ConcurrentConsumer {
  private readonly consumer: Consumer;
  private readonly partitions: PartitionTrackers;
  private readonly commits: CommitLoop;
  private readonly inFlight: InFlight;
  private commitTimer: NodeJS.Timeout | undefined;
  private stopping = false;
  private readonly duePauses: DuePauses;
  private readonly crashRestart: CrashRestart;
  /** Per partition and key, messages one after another (keyOrdered). */
  private readonly keyChains = new KeyChains();
  private readonly clock: Clock;
  /** The partitions the group gave this member at its last join. */
  private assigned: { topic: string; partition: number }[] = [];
  private lagMonitor: { stop(): void } | undefined;
  private readonly admin: Admin;
  /** Partitions being taken over (their committed holes read), and how many joins there were. */
  private readonly takeOvers = new Map<string, Promise<void>>();
  private joins = 0;
  private memberId: string | undefined;
  /** Between a crash of the kafkajs consumer and its next join: no partition is held then. */
  private outOfGroup = false;
  private readonly group: GroupView;

  constructor(private readonly options: ConcurrentConsumerOptions) {
    this.consumer = options.kafka.consumer(
      kafkajsConsumerConfig(options, {
        busiestFirst: () => this.partitions.busiestFirst(this.assigned),
        retiringKeys: () => this.partitions.retiringKeys(),
        stopping: () => this.stopping,
      }),
    );
    this.clock = options.clock ?? systemClock;
    this.duePauses = new DuePauses(this.clock, () => this.stopping);
    this.inFlight = new InFlight(options.maxInFlight);
    this.partitions = new PartitionTrackers(options.handoverGraceMs ?? HANDOVER_GRACE_MS);
    this.commits = new CommitLoop({
      committer: new Committer(this.consumer),
      partitions: this.partitions,
      clock: this.clock,
      logger: options.logger,
      groupId: options.groupId,
      commitDelayMs: options.commitDelayMs,
      stopping: () => this.stopping,
    });
    this.admin = options.admin ?? options.kafka.admin();
    this.group = new GroupView(this.admin, options.groupId);
    this.consumer.on(this.consumer.events.REBALANCING, () => void this.commit()); // before it moves
    // A crash kafkajs does not restart from: rejoin as its own restart would, as a new member
    // whose partitions are taken over (its trackers adopted where they are still its). Also
    // keeps kafkajs's own restart from rejoining once stopping (crash-restart.ts).
    this.crashRestart = restartAfterCrashes({
      consumer: this.consumer,
      stopping: () => this.stopping,
      run: () => this.runConsumer(),
      context: { groupId: options.groupId },
      logger: options.logger,
    });
    this.consumer.on(this.consumer.events.CRASH, () => void (this.outOfGroup = true));
    this.consumer.on(this.consumer.events.GROUP_JOIN, (event) => {
      // Keep the trackers of partitions still ours (kafkajs re-fetches from the committed offset;
      // the tracker knows what is in flight or done), unless this member left the group meanwhile
      // (a new member id: another may have had them). The others retire (handover.ts).
      this.assigned = Object.entries(event.payload.memberAssignment).flatMap(([topic, parts]) =>
        parts.map((partition) => ({ topic, partition })),
      );
      this.joins++;
      const afterOwnCrash = this.outOfGroup;
      this.outOfGroup = false;
      const sameMember = this.memberId === event.payload.memberId;
      this.memberId = event.payload.memberId;
      const keys = this.assigned.map((p) => `${p.topic}:${p.partition}`);
      this.takeOvers.clear();
      this.group.reset(afterOwnCrash);
      const fresh = this.partitions.assign(keys, sameMember, this.clock.now());
      for (const key of fresh) this.takeOvers.set(key, this.takeOver(key));
      // kafkajs fetches a kept partition from its committed offset: go on from the tracker instead.
      for (const key of keys) if (!fresh.includes(key)) this.resume(key, this.partitions.get(key)!);
      const { groupId, logger } = this.options;
      logger.info({ groupId, memberId: this.memberId, partitions: keys, takeOvers: fresh }, 'group joined');
      // Work done while commits were refused (broker away, membership expired) or on partitions given up.
      void this.commit();
    });
  }

  async start(): Promise<void> {
    const { topics, fromBeginning = true } = this.options;
    try {
      if (!this.options.admin) await this.admin.connect();
      await this.consumer.connect();
      await this.consumer.subscribe({ topics, fromBeginning });
      await this.runConsumer();
    } catch (err) {
      // Start-up may run again in this process (start-up.ts): leave no client connected behind.
      this.stopping = true;
      await this.consumer.disconnect().catch(() => undefined);
      if (!this.options.admin) await this.admin.disconnect().catch(() => undefined);
      throw err;
    }
    this.commitTimer = setInterval(() => void this.commit(), this.options.commitIntervalMs ?? 500);
    if (this.options.admin) {
      this.lagMonitor = startLagMonitor({
        admin: this.options.admin,
        groupId: this.options.groupId,
        assigned: () => this.assigned,
        metrics: this.options.metrics,
        logger: this.options.logger,
      });
    }
  }

  /** Runs the kafkajs consumer (at start, and again after a crash: crash-restart.ts). */
  private runConsumer(): Promise<void> {
    return this.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: 8,
      eachBatch: (payload) => this.onBatch(payload),
    });
  }

  private async onBatch({
    batch,
    resolveOffset,
    heartbeat,
    isRunning,
    isStale,
    pause,
  }: EachBatchPayload): Promise<void> {
    const key = `${batch.topic}:${batch.partition}`;
    while (!this.partitions.has(key)) {
      const takeOver = this.takeOvers.get(key);
      if (!takeOver) return; // not ours (any more)
      await Promise.race([takeOver, sleep(1_000)]);
      await heartbeat();
      if (!isRunning() || isStale() || this.stopping) return;
    }
    const tracker = this.partitions.get(key)!;
    if (isStale()) return; // a seek back to the holes

    // The fetch passed every offset from its first record's on: those between the records it hands
    // out are transaction markers or aborted records, done if the tracker lists them.
    let passedFrom = Number(batch.firstOffset() ?? Infinity);
    for (const message of batch.messages) {
      if (!isRunning() || isStale() || this.stopping) return;
      const offset = Number(message.offset);
      if (offset > passedFrom && tracker.passUnfetched(passedFrom, offset)) this.commitSoon();
      passedFrom = offset + 1;
      if (tracker.has(offset)) {
        resolveOffset(message.offset); // re-fetched after a rebalance: already in flight or done
        continue;
      }
      const dueAtMs = this.options.notBefore?.(message);
      if (dueAtMs !== undefined && dueAtMs > this.clock.now()) {
        // Not due: leave this offset unresolved (kafkajs fetches from it again after resume).
        this.duePauses.pauseUntil(dueAtMs, pause);
        return;
      }
      while (this.full()) {
        // Under a holdBack the bound moves with the work below it: looked at again soon.
        await this.inFlight.room(this.options.holdBack ? 100 : 1_000);
        await heartbeat();
        if (!isRunning() || isStale() || this.stopping) return;
      }
      if (this.partitions.get(key) !== tracker) return; // partition revoked meanwhile
      tracker.track(offset);
      resolveOffset(message.offset);
      this.inFlight.add();
      const held = () => !this.outOfGroup && this.partitions.holds(key, tracker);
      const { topic, partition } = batch;
      if (this.options.keyOrdered && message.key)
        this.keyChains.run(`${key}:${message.key.toString('latin1')}`, (nextMayStart) =>
          // One literal, not a spread plus a property: V8 adds those slowly, and this is per message.
          this.run({ topic, partition, message, held, nextMayStart }, tracker, offset),
        );
      else void this.run({ topic, partition, message, held }, tracker, offset);
    }
    await heartbeat();
  }

  /** A partition new to this member, taken over (takeover.ts), then fetched from its tracker. */
  private async takeOver(key: string): Promise<void> {
    const join = this.joins;
    const tracker = await takeOverPartition({
      ...partitionOf(key),
      consumer: this.options,
      admin: this.admin,
      group: this.group,
      memberId: this.memberId,
      stillOurs: () => !this.stopping && this.joins === join && !this.partitions.has(key),
      graceMs: this.partitions.graceMs,
      clock: this.clock,
    });
    if (!tracker) return;
    this.partitions.set(key, tracker); // adopts this process's earlier tracker of it, if any
    this.resume(key, tracker);
  }

  private resume(key: string, tracker: PartitionOffsets): void {
    resumeFromTracker(this.consumer, key, tracker, this.options.logger);
  }

  private full(): boolean {
    const { holdBack, maxInFlight } = this.options;
    return holdBack ? this.inFlight.size >= holdBack.limit(maxInFlight) : this.inFlight.full;
  }

  private async run(message: ConsumedMessage, tracker: PartitionOffsets, offset: number): Promise<void> {
    const { handler, logger } = this.options;
    const outcome = await handleMessage(handler, message, { stopping: () => this.stopping, logger });
    if (outcome === 'done' && tracker.complete(offset)) this.commitSoon();
    if (outcome === 'not-held') tracker.unstart(offset); // handed out again, here or by the next owner
    this.inFlight.done();
  }

  private commitSoon(): void {
    this.commits.soon();
  }

  /** Commits every partition's completed prefix (CommitLoop.commit). */
  commit(): Promise<void> {
    return this.commits.commit();
  }

  /** Stops fetching, lets in-flight messages finish (up to drainTimeoutMs), commits, leaves the group. */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.inFlight.wakeAll();
    this.crashRestart.cancel();
    this.duePauses.cancelAll();
    try {
      this.consumer.pause(this.options.topics.map((topic) => ({ topic })));
    } catch (err) {
      // kafkajs refuses while its consumer is down after a crash, its restart pending: there is
      // nothing to pause, and the disconnect below cancels the restart. The rest of the stop
      // (drain, commit, disconnect) must still run, or the restart rejoins a stopped process.
      this.options.logger.info(
        { groupId: this.options.groupId, err: errorMessage(err) },
        'stopping a consumer that is down',
      );
    }
    await this.inFlight.drained(this.options.drainTimeoutMs ?? 15_000);
    clearInterval(this.commitTimer);
    this.commits.cancelSoon();
    this.lagMonitor?.stop();
    this.partitions.retireAll(this.clock.now()); // released where nothing is left in flight
    await this.commit();
    await this.consumer.disconnect();
    if (!this.options.admin) await this.admin.disconnect();
  }

  /** Messages being handled now. */
  get inFlightCount(): number {
    return this.inFlight.size;
  }
}
