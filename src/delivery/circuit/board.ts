import type { Admin, Kafka } from 'kafkajs';
import type { AvroCodec } from '../../avro/codec';
import type { Clock } from '../../core/clock';
import type { BatchingProducer } from '../../kafka/batching-producer';
import type { Follower } from '../../kafka/follower';
import { startIndexer } from '../../kafka/indexer';
import type { Logger } from '../../observability/logger';
import {
  circuitKey,
  circuitUrlHash,
  decodeCircuit,
  encodeCircuit,
  type CircuitRecord,
} from '../../records/circuit';
import type { CircuitState } from './breaker';
import type { SharedCircuits } from './registry';

/** A URL's circuit as the admin API shows it. */
export interface CircuitView {
  state: CircuitState;
  /** Absent for a URL no worker has published a state for. */
  since?: string;
  lastError?: string;
}

export interface CircuitBoardOptions {
  kafka: Kafka;
  admin: Admin;
  avro: AvroCodec;
  producer: BatchingProducer;
  topics: { circuits: string };
  clientId: string;
  clock: Clock;
  logger: Logger;
}

/**
 * The circuits of every destination URL, shared by all processes through the compacted
 * `<prefix>.circuits` topic: a worker publishes each open and close of its breakers there, and
 * every process follows the topic, so every replica answers the same `circuit` in
 * `GET /api/v1/destinations/{id}`, and every worker (one that just restarted too) learns of an
 * open circuit (registry.ts). Half-open is not published: it is an open circuit past its
 * `openUntil`, the same on every replica. Of two records for one URL the later `updatedAt` holds
 * (a writer stamps its record later than any it has seen), so replicas agree whatever order
 * they read them in.
 */
export class CircuitBoard implements SharedCircuits {
  private readonly records = new Map<string, CircuitRecord>();
  private readonly listeners = new Set<(record: CircuitRecord) => void>();
  private indexer: Follower | undefined;

  private constructor(private readonly options: CircuitBoardOptions) {}

  /** A board that has read what the topic held at start, and follows it from there. */
  static async start(options: CircuitBoardOptions): Promise<CircuitBoard> {
    const board = new CircuitBoard(options);
    await board.follow();
    return board;
  }

  private async follow(): Promise<void> {
    this.indexer = await startIndexer({
      kafka: this.options.kafka,
      admin: this.options.admin,
      topic: this.options.topics.circuits,
      groupIdPrefix: `${this.options.clientId}-circuits`,
      logger: this.options.logger.child({ component: 'circuit-board' }),
      decode: (record) => decodeCircuit(this.options.avro, record.value),
      apply: (_record, circuit) => this.apply(circuit),
    });
    await this.indexer.whenCaughtUp();
  }

  async stop(): Promise<void> {
    await this.indexer?.stop();
  }

  /** Told of every record that became the current one for its URL (own and others'). */
  onChange(listener: (record: CircuitRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The current record of a destination URL, if one was published for this very URL. */
  get(destinationId: string, urlIndex: number, url: string): CircuitRecord | undefined {
    const record = this.records.get(circuitKey(destinationId, urlIndex));
    return record && record.urlHash === circuitUrlHash(url) ? record : undefined;
  }

  /** The circuit of each of a destination's URLs; closed for a URL never published. */
  views(destinationId: string, urls: readonly string[]): CircuitView[] {
    const nowMs = this.options.clock.now();
    return urls.map((url, i) => {
      const r = this.get(destinationId, i, url);
      if (!r) return { state: 'closed' };
      const halfOpen = r.state === 'open' && r.openUntilMs !== undefined && nowMs >= r.openUntilMs;
      return {
        state: halfOpen ? 'half_open' : r.state,
        since: new Date(halfOpen ? r.openUntilMs! : r.sinceMs).toISOString(),
        ...(r.lastError && r.state === 'open' && { lastError: r.lastError }),
      };
    });
  }

  /**
   * Publishes a transition: applied here at once, then written (resolves once Kafka has it).
   * Stamped later than the URL's current record, so it supersedes it everywhere.
   */
  async publish(record: Omit<CircuitRecord, 'updatedAtMs'>): Promise<void> {
    const current = this.records.get(circuitKey(record.destinationId, record.urlIndex));
    const updatedAtMs = Math.max(this.options.clock.now(), (current?.updatedAtMs ?? 0) + 1);
    const stamped: CircuitRecord = { ...record, updatedAtMs };
    this.apply(stamped);
    await this.options.producer.send([
      {
        topic: this.options.topics.circuits,
        key: circuitKey(record.destinationId, record.urlIndex),
        value: encodeCircuit(this.options.avro, stamped),
      },
    ]);
  }

  private apply(record: CircuitRecord): void {
    const key = circuitKey(record.destinationId, record.urlIndex);
    const current = this.records.get(key);
    if (current && current.updatedAtMs >= record.updatedAtMs) return; // older, or our own echo
    this.records.set(key, record);
    for (const listener of this.listeners) listener(record);
  }
}
