/**
 * Limits on what a new audience or computed trait may ask for, checked at the admin API before
 * the rule's (recursive) schema runs, so that no body can overflow the stack or stall the event
 * loop. Definitions already stored are not checked again (definitions.ts): a limit added later
 * must not switch off an audience that works.
 */

/** Rules nest at most this deep (`{"not": {"not": ...}}`: each rule one level). */
export const MAX_RULE_DEPTH = 32;
/** A rule holds at most this many rules, itself and every `all`, `any`, `not` and its rules counted. */
export const MAX_RULE_NODES = 200;

/** A limit a definition breaks: where (a path under the rule or compute) and why. */
export interface LimitIssue {
  path: (string | number)[];
  message: string;
}

/**
 * The limits a rule (any JSON value, not validated yet) breaks: nesting deeper than
 * MAX_RULE_DEPTH, more than MAX_RULE_NODES rules. Iterative, and it stops at the first rule past
 * a limit, so it costs at most MAX_RULE_NODES steps. Anything else wrong is left to the rule's
 * schema.
 */
const TOO_MANY: LimitIssue = {
  path: [],
  message: `a rule may hold at most ${MAX_RULE_NODES} rules (all, any and not count)`,
};

export function ruleLimitIssues(rule: unknown): LimitIssue[] {
  const issues: LimitIssue[] = [];
  const pending: Array<{ rule: unknown; depth: number; path: (string | number)[] }> = [
    { rule, depth: 1, path: [] },
  ];
  let nodes = 0;
  while (pending.length > 0) {
    const { rule: node, depth, path } = pending.pop()!;
    if (node === null || typeof node !== 'object' || Array.isArray(node)) continue;
    if (++nodes > MAX_RULE_NODES) return [TOO_MANY];
    if (depth > MAX_RULE_DEPTH) return [{ path, message: `rules may nest at most ${MAX_RULE_DEPTH} deep` }];
    const r = node as Record<string, unknown>;
    if (r.not !== undefined) pending.push({ rule: r.not, depth: depth + 1, path: [...path, 'not'] });
    for (const kind of ['all', 'any'] as const) {
      const children = r[kind];
      if (!Array.isArray(children)) continue;
      if (nodes + children.length > MAX_RULE_NODES) return [TOO_MANY];
      children.forEach((child: unknown, i) =>
        pending.push({ rule: child, depth: depth + 1, path: [...path, kind, i] }),
      );
    }
  }
  return issues;
}
