/**
 * The catalog's audience entities (schemas/catalog-audience.avsc, catalog-computed-trait.avsc):
 * definitions the audience processor evaluates. Rules and computations are kept as parsed JSON
 * here; the audiences stage validates and interprets them.
 */
export interface Audience {
  id: string;
  sourceId: string;
  name: string;
  /** snake_case of the name: the trait key in the identify calls it causes. */
  key: string;
  /** The rule (JSON); absent for a synced audience (membership given through the admin API). */
  rule?: unknown;
  createdAt: string;
  updatedAt: string;
}

export interface ComputedTrait {
  id: string;
  sourceId: string;
  name: string;
  key: string;
  /** What to compute (JSON): count, sum, last, first or lastTrait. */
  compute: unknown;
  createdAt: string;
  updatedAt: string;
}

export const AUDIENCE_RECORD = 'io.hookline.catalog.Audience';
export const COMPUTED_TRAIT_RECORD = 'io.hookline.catalog.ComputedTrait';

export type AudienceEntity =
  { kind: 'audience'; value: Audience } | { kind: 'computed_trait'; value: ComputedTrait };

type AvroRecord = Record<string, unknown>;

export function audienceEntityToRecord(entity: AudienceEntity): { name: string; value: AvroRecord } {
  const { createdAt, updatedAt } = entity.value;
  const times = { createdAt: Date.parse(createdAt), updatedAt: Date.parse(updatedAt) };
  if (entity.kind === 'audience') {
    const { rule, ...rest } = entity.value;
    return {
      name: AUDIENCE_RECORD,
      value: { ...rest, rule: rule === undefined ? null : JSON.stringify(rule), ...times },
    };
  }
  const { compute, ...rest } = entity.value;
  return { name: COMPUTED_TRAIT_RECORD, value: { ...rest, compute: JSON.stringify(compute), ...times } };
}

/** The entity of an audience record; undefined for a record name that is not one. */
export function audienceEntityFromRecord(name: string, record: AvroRecord): AudienceEntity | undefined {
  if (name !== AUDIENCE_RECORD && name !== COMPUTED_TRAIT_RECORD) return undefined;
  const common = {
    id: record.id as string,
    sourceId: record.sourceId as string,
    name: record.name as string,
    key: record.key as string,
    createdAt: new Date(record.createdAt as number).toISOString(),
    updatedAt: new Date(record.updatedAt as number).toISOString(),
  };
  if (name === COMPUTED_TRAIT_RECORD) {
    return { kind: 'computed_trait', value: { ...common, compute: JSON.parse(record.compute as string) } };
  }
  const rule = record.rule as string | null;
  return { kind: 'audience', value: rule === null ? common : { ...common, rule: JSON.parse(rule) } };
}
