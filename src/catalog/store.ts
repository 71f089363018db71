import { systemClock, type Clock } from '../core/clock';
import type { Logger } from '../observability/logger';
import type { CatalogView, Destination, Source } from '../records/catalog-model';
import { ReadProgress, type PartitionWatermarks } from '../kafka/progress';
import type { CatalogEntity } from '../records/catalog';
import { CatalogLagError } from './errors';
import { CatalogState, type CatalogChange } from './state';
import type { AudienceCatalogState } from './audience-state';
import { decideRecord, type RecordVersion } from './versions';

/** The read side of the audience definitions. */
export type AudienceCatalogReads = Pick<
  AudienceCatalogState,
  'audience' | 'computedTrait' | 'audiences' | 'computedTraits' | 'idsOfSource'
>;

export type { CatalogChange } from './state';
export type CatalogListener = (change: CatalogChange) => void;

export interface CatalogStoreOptions {
  logger: Logger;
  clock?: Clock;
}

/** Where a record sits on the catalog topic. */
export interface TopicPosition {
  partition: number;
  offset: string;
}

/** A record `decideRecord` rejected: a write made from a version that was no longer current. */
export interface Rejection {
  id: string;
  /** The key's version when the record was rejected; undefined when no entity held it. */
  currentVersion: number | undefined;
  /**
   * The record was the last of its key so far: compaction would keep it instead of the winner,
   * so its writer re-appends the current state (`entity`, or a tombstone when undefined).
   */
  repair?: { entity: CatalogEntity | undefined; version: number | undefined };
}

/** Rejections remembered for their writers, who ask right after their record is applied. */
const MAX_REJECTIONS = 1_024;

/**
 * The process's copy of the catalog, fed by the materialiser from the catalog topic. Reads are
 * in-memory and synchronous; `ready` turns true once the topic has been read up to where it stood
 * at start, and stays true. Listeners hear every applied change, replayed ones included.
 */
export class CatalogStore implements CatalogView {
  private readonly state = new CatalogState();
  private readonly progress = new ReadProgress({ lagError: (message) => new CatalogLagError(message) });
  private readonly listeners = new Set<CatalogListener>();
  /** Recent rejections by `partition:offset`, and per key the offset of its last accepted record. */
  private readonly rejections = new Map<string, Omit<Rejection, 'repair'>>();
  private readonly lastAccepted = new Map<string, bigint>();
  private readonly logger: Logger;
  private readonly clock: Clock;
  private skipped = 0;
  private startedAtMs = 0;

  constructor(options: CatalogStoreOptions) {
    this.logger = options.logger;
    this.clock = options.clock ?? systemClock;
  }

  /** Entities materialised so far, and records skipped as undecodable (for `catalogStoreMetrics`). */
  get counts(): { sources: number; destinations: number; skippedRecords: number } {
    return {
      sources: this.state.sourceCount,
      destinations: this.state.destinationCount,
      skippedRecords: this.skipped,
    };
  }

  // --- CatalogView ---

  sourceByWriteKey(writeKey: string): Source | undefined {
    return this.state.sourceByWriteKey(writeKey);
  }

  source(id: string): Source | undefined {
    return this.state.source(id);
  }

  destination(id: string): Destination | undefined {
    return this.state.destination(id);
  }

  destinationsOfSource(sourceId: string): Destination[] {
    return this.state.destinationsOfSource(sourceId);
  }

  // --- beyond CatalogView ---

  /** Audiences and computed traits, by id or (of one source) in creation order. */
  get audiences(): AudienceCatalogReads {
    return this.state.audiences;
  }

  /** Every source, in creation order. */
  sources(): Source[] {
    return this.state.sources();
  }

  /** Every destination, in creation order. */
  destinations(): Destination[] {
    return this.state.destinations();
  }

  get ready(): boolean {
    return this.progress.caughtUp;
  }

  /** Resolves once `ready`. */
  whenReady(): Promise<void> {
    return new Promise((resolve) => this.progress.onCaughtUp(resolve));
  }

  /** Subscribes to changes; returns the unsubscribe function. A throwing listener is logged, not fatal. */
  onChange(listener: CatalogListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Resolves once the record at `offset` (of `partition`) has been applied here; rejects with
   * CatalogLagError after `timeoutMs` or when the store closes.
   */
  waitForOffset(offset: string, timeoutMs: number, partition = 0): Promise<void> {
    return this.progress.waitFor(partition, offset, timeoutMs);
  }

  // --- fed by the materialiser ---

  /** The watermarks observed at start: `ready` once every partition is read up to them. */
  expect(watermarks: PartitionWatermarks[]): void {
    this.startedAtMs = this.clock.now();
    this.progress.onCaughtUp(() =>
      this.logger.info(
        {
          sources: this.state.sourceCount,
          destinations: this.state.destinationCount,
          elapsedMs: this.clock.now() - this.startedAtMs,
        },
        'catalog caught up',
      ),
    );
    this.progress.expect(watermarks);
  }

  /** False for a record at or before one already processed (a replay after a consumer rejoin). */
  isNew(position: TopicPosition): boolean {
    return this.progress.isNew(position.partition, position.offset);
  }

  /** The entity's version (versions.ts); undefined when there is no such entity. */
  versionOf(id: string): number | undefined {
    return this.state.keyState(id).version;
  }

  /** The rejection of the record at `position`, if it was rejected (and recently). */
  rejection(position: TopicPosition): Rejection | undefined {
    const rejected = this.rejections.get(`${position.partition}:${position.offset}`);
    if (!rejected) return undefined;
    const last = this.lastAccepted.get(rejected.id);
    if (last !== undefined && last > BigInt(position.offset)) return rejected;
    const { version } = this.state.keyState(rejected.id);
    return { ...rejected, repair: { entity: this.state.entity(rejected.id), version } };
  }

  /**
   * Applies one topic record, an entity or a tombstone (`undefined`) for `id`, if `decideRecord`
   * accepts it given its version headers (none: applied unconditionally).
   */
  apply(
    position: TopicPosition,
    id: string,
    entity: CatalogEntity | undefined,
    record: RecordVersion = { repair: false },
  ): void {
    if (!this.isNew(position)) return;
    const key = this.state.keyState(id);
    const decision = decideRecord(key, { ...record, tombstone: entity === undefined });
    let change: CatalogChange | undefined;
    if (decision === 'reject') this.remember(position, { id, currentVersion: key.version });
    else this.lastAccepted.set(id, BigInt(position.offset));
    // A tombstone that changes nothing still marks the key deleted, as on a replica that saw the
    // entity: one that replays a compacted log (where only a repair tombstone is left) agrees.
    if (decision === 'apply' || (decision === 'noop' && !entity))
      change = entity ? this.state.put(entity, record.version) : this.state.remove(id);
    this.progress.advance(position.partition, position.offset);
    if (change) this.notify(change);
  }

  /** A record this view leaves out (a sources-only catalog's destinations): read past, not counted. */
  passOver(position: TopicPosition): void {
    this.progress.advance(position.partition, position.offset);
  }

  /** A record that could not be applied: counted, and read past. */
  skip(position: TopicPosition): void {
    this.skipped++;
    this.progress.advance(position.partition, position.offset);
  }

  /** Rejects pending `waitForOffset` calls; called when the materialiser stops. */
  close(): void {
    this.progress.close();
  }

  private remember(position: TopicPosition, rejection: Omit<Rejection, 'repair'>): void {
    this.logger.info(
      { ...position, id: rejection.id, currentVersion: rejection.currentVersion },
      'catalog record rejected: written from a stale version',
    );
    this.rejections.set(`${position.partition}:${position.offset}`, rejection);
    if (this.rejections.size > MAX_REJECTIONS) this.rejections.delete(this.rejections.keys().next().value!);
  }

  private notify(change: CatalogChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (err) {
        this.logger.error({ err, kind: change.kind, id: change.id }, 'catalog change listener failed');
      }
    }
  }
}
