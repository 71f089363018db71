import type { Audience, AudienceEntity, ComputedTrait } from '../records/catalog-audiences';

/** One applied change to an audience or computed trait; `before`/`after` undefined = absent. */
export type AudienceChange =
  | { kind: 'audience'; id: string; before: Audience | undefined; after: Audience | undefined }
  | {
      kind: 'computed_trait';
      id: string;
      before: ComputedTrait | undefined;
      after: ComputedTrait | undefined;
    };

/** The materialised audiences and computed traits, by id (part of CatalogState). */
export class AudienceCatalogState {
  private readonly audiencesById = new Map<string, Audience>();
  private readonly traitsById = new Map<string, ComputedTrait>();

  put(entity: AudienceEntity): AudienceChange {
    if (entity.kind === 'audience') {
      const before = this.audiencesById.get(entity.value.id);
      this.audiencesById.set(entity.value.id, entity.value);
      return { kind: 'audience', id: entity.value.id, before, after: entity.value };
    }
    const before = this.traitsById.get(entity.value.id);
    this.traitsById.set(entity.value.id, entity.value);
    return { kind: 'computed_trait', id: entity.value.id, before, after: entity.value };
  }

  remove(id: string): AudienceChange | undefined {
    const audience = this.audiencesById.get(id);
    if (audience) {
      this.audiencesById.delete(id);
      return { kind: 'audience', id, before: audience, after: undefined };
    }
    const trait = this.traitsById.get(id);
    if (trait) {
      this.traitsById.delete(id);
      return { kind: 'computed_trait', id, before: trait, after: undefined };
    }
    return undefined;
  }

  audience(id: string): Audience | undefined {
    return this.audiencesById.get(id);
  }

  computedTrait(id: string): ComputedTrait | undefined {
    return this.traitsById.get(id);
  }

  /** Every audience (of one source when given), in creation order. */
  audiences(sourceId?: string): Audience[] {
    return inCreationOrder([...this.audiencesById.values()], sourceId);
  }

  /** The ids of a source's audiences and computed traits. */
  idsOfSource(sourceId: string): string[] {
    return [...this.audiences(sourceId), ...this.computedTraits(sourceId)].map((d) => d.id);
  }

  /** Every computed trait (of one source when given), in creation order. */
  computedTraits(sourceId?: string): ComputedTrait[] {
    return inCreationOrder([...this.traitsById.values()], sourceId);
  }
}

function inCreationOrder<T extends { id: string; sourceId: string; createdAt: string }>(
  all: T[],
  sourceId: string | undefined,
): T[] {
  return all
    .filter((e) => sourceId === undefined || e.sourceId === sourceId)
    .sort((a, b) =>
      a.createdAt === b.createdAt ? a.id.localeCompare(b.id) : a.createdAt < b.createdAt ? -1 : 1,
    );
}
