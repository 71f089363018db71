import type { Admin, Kafka } from 'kafkajs';
import type { AvroCodec } from '../avro/codec';
import type { Clock } from '../core/clock';
import type { BatchingProducer } from '../kafka/batching-producer';
import { startIndexer } from '../kafka/indexer';
import type { Follower } from '../kafka/follower';
import type { Logger } from '../observability/logger';
import { decodeReplayProgress, encodeReplayProgress, type ReplayProgress } from '../records/replay';

/** A running replay whose process has not written its progress for this long has lost it. */
export const REPLAY_STALE_MS = 30_000;
/** Progress of a running replay is written at most this often (and always when it ends). */
const PUBLISH_INTERVAL_MS = 1_000;
/** Replays remembered per process; the topic keeps 7 days of them. */
const MAX_KEPT = 1_000;

export interface ReplayBoardOptions {
  kafka: Kafka;
  admin: Admin;
  avro: AvroCodec;
  producer: BatchingProducer;
  /** `<prefix>.replays`. */
  topic: string;
  clientId: string;
  clock: Clock;
  logger: Logger;
}

/**
 * Every replay's progress, shared by all processes through the compacted `<prefix>.replays` topic:
 * the process running a replay writes its progress there, and every process follows the topic,
 * so any of them answers `GET /replays/{id}`. A replay left `running` by a process that died is
 * reported `failed` once its progress is older than REPLAY_STALE_MS.
 */
export class ReplayBoard {
  private readonly known = new Map<string, ReplayProgress>();
  private readonly lastPublishedMs = new Map<string, number>();
  private indexer: Follower | undefined;

  constructor(private readonly options: ReplayBoardOptions) {}

  async start(): Promise<void> {
    this.indexer = await startIndexer({
      kafka: this.options.kafka,
      admin: this.options.admin,
      topic: this.options.topic,
      groupIdPrefix: `${this.options.clientId}-replays`,
      logger: this.options.logger.child({ component: 'replay-board' }),
      decode: (record) => decodeReplayProgress(this.options.avro, record.value),
      apply: (_record, progress) => this.remember(progress),
    });
  }

  async stop(): Promise<void> {
    await this.indexer?.stop();
  }

  /** A replay's progress as any process last wrote it, or undefined. */
  get(id: string): ReplayProgress | undefined {
    const progress = this.known.get(id);
    if (!progress) return undefined;
    const stale =
      progress.state === 'running' &&
      this.options.clock.now() - (progress.updatedAtMs ?? progress.startedAtMs) > REPLAY_STALE_MS;
    return stale
      ? { ...progress, state: 'failed', error: 'the process running this replay stopped' }
      : progress;
  }

  /** A replay of this destination still running, on any process, or undefined. */
  runningFor(destinationId: string): ReplayProgress | undefined {
    for (const id of this.known.keys()) {
      const progress = this.get(id);
      if (progress?.state === 'running' && progress.destinationId === destinationId) return progress;
    }
    return undefined;
  }

  /**
   * Writes a replay's progress (at most once a second while it runs; always at its start and end).
   * Resolves once Kafka has it, or at once when skipped.
   */
  async publish(progress: ReplayProgress, force = false): Promise<void> {
    const nowMs = this.options.clock.now();
    const last = this.lastPublishedMs.get(progress.id);
    if (!force && last !== undefined && nowMs - last < PUBLISH_INTERVAL_MS) return;
    this.lastPublishedMs.set(progress.id, nowMs);
    if (progress.state !== 'running') this.lastPublishedMs.delete(progress.id);
    this.remember({ ...progress, updatedAtMs: nowMs });
    await this.options.producer.send([
      {
        topic: this.options.topic,
        key: progress.id,
        value: encodeReplayProgress(this.options.avro, progress, nowMs),
      },
    ]);
  }

  private remember(progress: ReplayProgress): void {
    const current = this.known.get(progress.id);
    // Never step back: a record read from the topic may be older than what this process wrote.
    if (current && (current.updatedAtMs ?? 0) > (progress.updatedAtMs ?? 0)) return;
    this.known.delete(progress.id);
    this.known.set(progress.id, progress);
    for (const id of this.known.keys()) {
      if (this.known.size <= MAX_KEPT) break;
      this.known.delete(id);
    }
  }
}
