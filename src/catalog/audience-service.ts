import { randomBytes } from 'node:crypto';
import { systemClock, type Clock } from '../core/clock';
import type { Logger } from '../observability/logger';
import type { Audience, ComputedTrait } from '../records/catalog-audiences';
import { AudienceKeyTakenError, CatalogNotFoundError, UnknownSourceError } from './errors';
import { OperationQueue } from './operations';
import type { CatalogWrites } from './service';
import type { CatalogStore } from './store';

export interface AudienceCatalogServiceOptions {
  store: CatalogStore;
  writer: CatalogWrites;
  logger: Logger;
  clock?: Clock;
}

/** A new definition, its rule or computation already validated by the audiences stage. */
export interface AudienceCreate {
  sourceId: string;
  name: string;
  /** snake_case of the name. */
  key: string;
  rule?: unknown;
}

export interface ComputedTraitCreate {
  sourceId: string;
  name: string;
  key: string;
  compute: unknown;
}

/**
 * Writes audience and computed-trait definitions to the catalog topic. Keys (the traits the
 * identify calls carry) are unique per source across audiences and computed traits: a second
 * definition whose name maps to a taken key is refused. Operations of one process run one at a time.
 */
export class AudienceCatalogService {
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly operations: OperationQueue;

  constructor(private readonly options: AudienceCatalogServiceOptions) {
    this.logger = options.logger.child({ component: 'catalog' });
    this.clock = options.clock ?? systemClock;
    this.operations = new OperationQueue({ ready: () => options.store.ready, logger: this.logger });
  }

  createAudience(input: AudienceCreate): Promise<Audience> {
    return this.operations.serialised(async () => {
      this.checkKey(input.sourceId, input.key);
      const now = this.now();
      const audience: Audience = {
        id: `aud_${randomBytes(12).toString('hex')}`,
        sourceId: input.sourceId,
        name: input.name,
        key: input.key,
        ...(input.rule !== undefined && { rule: input.rule }),
        createdAt: now,
        updatedAt: now,
      };
      await this.options.writer.put({ kind: 'audience', value: audience }, 1);
      this.logger.info({ audienceId: audience.id, sourceId: audience.sourceId }, 'audience created');
      return audience;
    });
  }

  createComputedTrait(input: ComputedTraitCreate): Promise<ComputedTrait> {
    return this.operations.serialised(async () => {
      this.checkKey(input.sourceId, input.key);
      const now = this.now();
      const trait: ComputedTrait = {
        id: `ctr_${randomBytes(12).toString('hex')}`,
        ...input,
        createdAt: now,
        updatedAt: now,
      };
      await this.options.writer.put({ kind: 'computed_trait', value: trait }, 1);
      this.logger.info({ computedTraitId: trait.id, sourceId: trait.sourceId }, 'computed trait created');
      return trait;
    });
  }

  /** Deletes an audience or computed trait; its identify calls stop (no `false` is sent). */
  delete(kind: 'audience' | 'computed_trait', id: string): Promise<void> {
    return this.operations.serialised(async () => {
      const audiences = this.options.store.audiences;
      const found = kind === 'audience' ? audiences.audience(id) : audiences.computedTrait(id);
      if (!found) throw new CatalogNotFoundError(kind, id);
      await this.options.writer.remove(id, this.options.store.versionOf(id));
      this.logger.info({ id, kind, sourceId: found.sourceId }, `${kind.replace('_', ' ')} deleted`);
    });
  }

  private checkKey(sourceId: string, key: string): void {
    const { store } = this.options;
    if (!store.source(sourceId)) throw new UnknownSourceError(sourceId);
    const taken = [...store.audiences.audiences(sourceId), ...store.audiences.computedTraits(sourceId)].find(
      (d) => d.key === key,
    );
    if (taken) throw new AudienceKeyTakenError(sourceId, key, taken.id);
  }

  private now(): string {
    return new Date(this.clock.now()).toISOString();
  }
}
