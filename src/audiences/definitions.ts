import type { Audience, ComputedTrait } from '../catalog';
import { computeSchema, mergeSpecs, specsOf, type Computation, type Specs } from './computations';
import { ruleSchema } from './rules';

/**
 * The audiences and computed traits of every source, as the processor evaluates them, built from
 * the catalog's definitions. A definition whose rule or computation no longer parses (written by
 * a newer version) is left out and reported in `invalid`.
 */
export class Definitions {
  private readonly byId = new Map<string, Computation>();
  private readonly bySource = new Map<string, Computation[]>();
  readonly invalid: string[] = [];

  constructor(audiences: Audience[], traits: ComputedTrait[]) {
    for (const a of audiences) {
      const rule = a.rule === undefined ? undefined : ruleSchema.safeParse(a.rule);
      if (rule && !rule.success) {
        this.invalid.push(a.id);
        continue;
      }
      const common = { id: a.id, sourceId: a.sourceId, key: a.key };
      this.add(rule ? { class: 'audience', ...common, rule: rule.data } : { class: 'audience', ...common });
    }
    for (const t of traits) {
      const compute = computeSchema.safeParse(t.compute);
      if (!compute.success) {
        this.invalid.push(t.id);
        continue;
      }
      this.add({ class: 'trait', id: t.id, sourceId: t.sourceId, key: t.key, compute: compute.data });
    }
  }

  private add(c: Computation): void {
    this.byId.set(c.id, c);
    const list = this.bySource.get(c.sourceId) ?? [];
    list.push(c);
    this.bySource.set(c.sourceId, list);
  }

  get(id: string): Computation | undefined {
    return this.byId.get(id);
  }

  all(): Computation[] {
    return [...this.byId.values()];
  }

  ofSource(sourceId: string): Computation[] {
    return this.bySource.get(sourceId) ?? [];
  }
}

/** The counters and values the computations read, merged. */
export function specsOfAll(computations: Computation[], hourMs: number): Specs {
  return mergeSpecs(computations.map((c) => specsOf(c, hourMs)));
}

/** Whether a computation's value can change with time alone (a window), so the sync re-evaluates it. */
export function hasWindow(computation: Computation, hourMs: number): boolean {
  return specsOf(computation, hourMs).counters.some((c) => c.windowMs !== undefined);
}
