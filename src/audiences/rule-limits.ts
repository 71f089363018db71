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
/**
 * The longest window (`withinDays`, `withinHours`): a year. A window's counts are kept per bucket
 * (HOOKLINE_AUDIENCE_BUCKET, an hour) for each user, so its memory grows with its length.
 */
export const MAX_WINDOW_DAYS = 365;

/** A limit a definition breaks: where (a path under the rule or compute) and why. */
export interface LimitIssue {
  path: (string | number)[];
  message: string;
}

/**
 * The limits a rule (any JSON value, not validated yet) breaks: nesting deeper than
 * MAX_RULE_DEPTH, more than MAX_RULE_NODES rules, windows longer than MAX_WINDOW_DAYS. Iterative,
 * and it stops at the first rule past a limit of size, so it costs at most MAX_RULE_NODES steps. Anything else wrong is left to the rule's
 * schema.
 */
/** A window longer than MAX_WINDOW_DAYS (at `path`), or undefined. */
export function windowIssue(window: unknown, path: (string | number)[]): LimitIssue | undefined {
  if (window === null || typeof window !== 'object') return undefined;
  const { withinDays, withinHours } = window as { withinDays?: unknown; withinHours?: unknown };
  if (typeof withinDays === 'number' && withinDays > MAX_WINDOW_DAYS)
    return { path: [...path, 'withinDays'], message: `must be at most ${MAX_WINDOW_DAYS} days` };
  if (typeof withinHours === 'number' && withinHours > MAX_WINDOW_DAYS * 24)
    return {
      path: [...path, 'withinHours'],
      message: `must be at most ${MAX_WINDOW_DAYS * 24} hours (${MAX_WINDOW_DAYS} days)`,
    };
  return undefined;
}

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
    const window = windowIssue(r.event, [...path, 'event']);
    if (window) issues.push(window);
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
