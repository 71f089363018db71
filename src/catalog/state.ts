import { hashWriteKey } from './keys';
import type { Destination, Source } from '../records/catalog-model';
import type { CatalogEntity } from '../records/catalog';
import { AudienceCatalogState, type AudienceChange } from './audience-state';
import type { KeyState } from './versions';

/** One applied change; `before`/`after` undefined = did not exist / was deleted. */
export type CatalogChange =
  | { kind: 'source'; id: string; before: Source | undefined; after: Source | undefined }
  | { kind: 'destination'; id: string; before: Destination | undefined; after: Destination | undefined }
  | AudienceChange;

/**
 * The materialised catalog: plain maps plus the indexes the hot paths need (write-key hash →
 * source, source → destinations in creation order). Knows nothing about Kafka; `apply` takes
 * one topic record (entity, or tombstone) and returns what changed.
 */
export class CatalogState {
  private readonly sourcesById = new Map<string, Source>();
  private readonly sourcesByKeyHash = new Map<string, Source>();
  private readonly destinationsById = new Map<string, Destination>();
  /** Per source: its destinations by id, and the sorted list, rebuilt lazily after a change. */
  private readonly destinationsBySource = new Map<
    string,
    { byId: Map<string, Destination>; sorted?: Destination[] }
  >();
  /** Audiences and computed traits (audience-state.ts). */
  readonly audiences = new AudienceCatalogState();
  /** The version of every entity (versions.ts), and the ids a tombstone removed. */
  private readonly versions = new Map<string, number>();
  private readonly deleted = new Set<string>();

  /**
   * A record with a value: create or replace the entity under its id, at `version` (absent: a
   * record written before versions existed, version 0). Sources and destinations carry it.
   */
  put(entity: CatalogEntity, version?: number): CatalogChange {
    this.versions.set(entity.value.id, version ?? 0);
    if (entity.kind === 'audience' || entity.kind === 'computed_trait') return this.audiences.put(entity);
    return entity.kind === 'source'
      ? this.putSource(stamped(entity.value, version))
      : this.putDestination(stamped(entity.value, version));
  }

  /** The key's version and whether a tombstone removed it: what `decideRecord` needs. */
  keyState(id: string): KeyState {
    return { version: this.versions.get(id), deleted: this.deleted.has(id) };
  }

  /** The entity under `id`, of any kind: what a repair record re-appends. */
  entity(id: string): CatalogEntity | undefined {
    const source = this.sourcesById.get(id);
    if (source) return { kind: 'source', value: source };
    const destination = this.destinationsById.get(id);
    if (destination) return { kind: 'destination', value: destination };
    const audience = this.audiences.audience(id);
    if (audience) return { kind: 'audience', value: audience };
    const trait = this.audiences.computedTrait(id);
    return trait && { kind: 'computed_trait', value: trait };
  }

  /** A tombstone: delete whatever entity has this id; undefined when there was none. */
  remove(id: string): CatalogChange | undefined {
    this.versions.delete(id);
    this.deleted.add(id);
    const source = this.sourcesById.get(id);
    if (source) {
      this.sourcesById.delete(id);
      this.sourcesByKeyHash.delete(source.writeKeyHash);
      return { kind: 'source', id, before: source, after: undefined };
    }
    const destination = this.destinationsById.get(id);
    if (destination) {
      this.destinationsById.delete(id);
      this.unindexDestination(destination);
      return { kind: 'destination', id, before: destination, after: undefined };
    }
    return this.audiences.remove(id);
  }

  source(id: string): Source | undefined {
    return this.sourcesById.get(id);
  }

  sourceByWriteKey(writeKey: string): Source | undefined {
    return this.sourcesByKeyHash.get(hashWriteKey(writeKey));
  }

  destination(id: string): Destination | undefined {
    return this.destinationsById.get(id);
  }

  destinationsOfSource(sourceId: string): Destination[] {
    const index = this.destinationsBySource.get(sourceId);
    if (!index) return [];
    index.sorted ??= [...index.byId.values()].sort(byCreation);
    return [...index.sorted];
  }

  /** Every source, in creation order. */
  sources(): Source[] {
    return [...this.sourcesById.values()].sort(byCreation);
  }

  /** Every destination, in creation order. */
  destinations(): Destination[] {
    return [...this.destinationsById.values()].sort(byCreation);
  }

  get sourceCount(): number {
    return this.sourcesById.size;
  }

  get destinationCount(): number {
    return this.destinationsById.size;
  }

  private putSource(source: Source): CatalogChange {
    const before = this.sourcesById.get(source.id);
    if (before) this.sourcesByKeyHash.delete(before.writeKeyHash);
    this.sourcesById.set(source.id, source);
    this.sourcesByKeyHash.set(source.writeKeyHash, source);
    return { kind: 'source', id: source.id, before, after: source };
  }

  private putDestination(destination: Destination): CatalogChange {
    const before = this.destinationsById.get(destination.id);
    this.destinationsById.set(destination.id, destination);
    if (before) this.unindexDestination(before);
    let index = this.destinationsBySource.get(destination.sourceId);
    if (!index) {
      index = { byId: new Map() };
      this.destinationsBySource.set(destination.sourceId, index);
    }
    index.byId.set(destination.id, destination);
    index.sorted = undefined;
    return { kind: 'destination', id: destination.id, before, after: destination };
  }

  private unindexDestination(destination: Destination): void {
    const index = this.destinationsBySource.get(destination.sourceId);
    if (!index) return;
    index.byId.delete(destination.id);
    index.sorted = undefined;
    if (index.byId.size === 0) this.destinationsBySource.delete(destination.sourceId);
  }
}

/** The entity carrying its version; as it is when the record had none. */
function stamped<T extends { version?: number }>(value: T, version: number | undefined): T {
  return version === undefined ? value : { ...value, version };
}

/**
 * Creation order. Replaying a compacted topic does not preserve it (an updated entity moves to
 * the end of the log), so it comes from `createdAt`, ties broken by id.
 */
function byCreation(a: { id: string; createdAt: string }, b: { id: string; createdAt: string }): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
