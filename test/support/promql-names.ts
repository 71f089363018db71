/**
 * Metric names referenced by Prometheus rules and Grafana dashboards, so that a test can check
 * each against what Hookline really exports (names drift silently otherwise).
 */

/** Words of PromQL that are not metric names when not followed by `(`. */
const KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'inf',
  'nan',
]);

/**
 * The metric names in a PromQL expression: identifiers outside label matchers (`{...}`), ranges
 * (`[...]`), string literals and grouping clauses (`by (...)`, `on (...)`, ...), that are neither
 * functions/aggregations (followed by `(`) nor keywords. Grafana variables (`$job`,
 * `$__rate_interval`, `${x}`) are ignored; `label_values(metric, label)` yields the metric only.
 */
export function metricNames(expr: string): string[] {
  let e = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\$\{[^}]*\}|\$\w+/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  // label_values(label) names no metric; label_values(metric, label) names one.
  e = e
    .replace(/\blabel_values\s*\(\s*[\w:]*\s*\)/g, ' ')
    .replace(/\blabel_values\s*\(\s*([\w:]*)\s*,[^)]*\)/g, ' $1 ');
  const names = new Set<string>();
  for (const m of e.matchAll(/(?<![\w.:])[a-zA-Z_:][\w:]*/g)) {
    const rest = e.slice((m.index ?? 0) + m[0].length);
    if (/^\s*\(/.test(rest) || KEYWORDS.has(m[0].toLowerCase())) continue;
    names.add(m[0]);
  }
  return [...names].sort();
}

/**
 * The `expr:` values of a Prometheus rules file: single-line, quoted, or block scalars
 * (`|`, `|-`, `>`, `>-`). A small reader for this repository's rule files, not a YAML parser.
 */
export function ruleExpressions(rulesYaml: string): string[] {
  const lines = rulesYaml.split('\n');
  const exprs: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^(\s*)(?:- )?expr:\s*(.*)$/.exec(lines[i]);
    if (!m) continue;
    const value = m[2].trim();
    if (!/^[|>][-+]?$/.test(value)) {
      exprs.push(value.replace(/^'(.*)'$/, '$1').replace(/^"(.*)"$/, '$1'));
      continue;
    }
    const block: string[] = [];
    for (let j = i + 1; j < lines.length; j++) {
      const indent = /^(\s*)/.exec(lines[j])![1].length;
      if (lines[j].trim() !== '' && indent <= m[1].length) break;
      block.push(lines[j].trim());
      i = j;
    }
    exprs.push(block.join('\n').trim());
  }
  return exprs;
}

/** Every PromQL expression of a Grafana dashboard: panel targets and templating queries. */
export function dashboardExpressions(dashboard: unknown): string[] {
  const exprs: string[] = [];
  const walk = (node: unknown, key?: string): void => {
    if (Array.isArray(node)) node.forEach((n) => walk(n));
    else if (node && typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) walk(v, k);
    } else if (typeof node === 'string' && (key === 'expr' || key === 'query' || key === 'definition')) {
      // Templating queries: `label_values(...)`, `query_result(...)`; a datasource's `query` is a type name.
      if (key === 'expr' || /\(/.test(node)) exprs.push(node);
    }
  };
  walk(dashboard);
  return exprs;
}

/**
 * The metric names a Prometheus text exposition defines: every `# TYPE` line (a labelled metric
 * with no sample yet still has one) and every sample name.
 */
export function exposedNames(exposition: string): { names: Set<string>; types: Map<string, string> } {
  const types = new Map<string, string>();
  const names = new Set<string>();
  for (const line of exposition.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)/.exec(line);
    if (type) {
      types.set(type[1], type[2]);
      names.add(type[1]);
    } else if (line && !line.startsWith('#')) names.add(/^[^{\s]+/.exec(line)![0]);
  }
  return { names, types };
}

/** Whether a referenced name exists: itself, or a histogram/summary's `_bucket`/`_sum`/`_count`. */
export function isExposed(name: string, exposed: ReturnType<typeof exposedNames>): boolean {
  if (exposed.names.has(name)) return true;
  const m = /^(.*)_(bucket|sum|count)$/.exec(name);
  if (!m) return false;
  const type = exposed.types.get(m[1]);
  return type === 'histogram' || (type === 'summary' && m[2] !== 'bucket');
}
