import {
  dashboardExpressions,
  exposedNames,
  isExposed,
  metricNames,
  ruleExpressions,
} from '../../support/promql-names';

describe('metricNames', () => {
  it.each([
    ['a bare metric', 'up', ['up']],
    ['matchers and a range', 'rate(a_total{job=~"x|y", le="+Inf"}[5m])', ['a_total']],
    [
      'aggregation with by before and after',
      'sum by (le) (rate(h_bucket[1m])) + sum(rate(c_total[1m])) by (destination_id)',
      ['c_total', 'h_bucket'],
    ],
    [
      'binary operators, on/group_left',
      'a / on (x, y) group_left (z) b and c unless d or e',
      ['a', 'b', 'c', 'd', 'e'],
    ],
    [
      'vector(0) and numbers, scientific too',
      '(sum(x) or vector(0)) == 0 and y > 1e-3 and z > 1 / 600',
      ['x', 'y', 'z'],
    ],
    ['a regex with escapes in a matcher', 'l{topic!~".*\\\\.retry(\\\\..*)?", a="}"}', ['l']],
    ['Grafana variables', 'rate(m{job=~"$job"}[$__rate_interval]) offset $__range', ['m']],
    ['a subquery and offset', 'max_over_time(m[10m:1m] offset 5m)', ['m']],
    ['label_values with a metric', 'label_values(p_start{job=~"$job"}, instance)', ['p_start']],
    ['label_values of a label only', 'label_values(job)', []],
    ['a keyword-like label in by()', 'max by (destination_id, url_index) (c_open) == 1', ['c_open']],
    ['colons in recording-rule names', 'job:rate5m:sum > 0', ['job:rate5m:sum']],
  ])('%s', (_case, expr, expected) => {
    expect(metricNames(expr)).toEqual(expected);
  });
});

describe('ruleExpressions', () => {
  it('reads single-line, quoted and block expressions', () => {
    const rules = [
      'groups:',
      '  - name: g',
      '    rules:',
      '      - alert: A',
      '        expr: up == 0',
      '        for: 1m',
      '      - alert: B',
      "        expr: 'x > 1'",
      '      - alert: C',
      '        expr: |',
      '          sum(a)',
      '',
      '          and b',
      '        labels: {}',
      '      - record: r',
      '        expr: >-',
      '          c',
    ].join('\n');
    expect(ruleExpressions(rules)).toEqual(['up == 0', 'x > 1', 'sum(a)\n\nand b', 'c']);
  });
});

describe('dashboardExpressions', () => {
  it('collects panel targets (nested rows too) and templating queries, not datasource types', () => {
    const dashboard = {
      panels: [{ targets: [{ expr: 'a' }] }, { type: 'row', panels: [{ targets: [{ expr: 'b' }] }] }],
      templating: {
        list: [
          { type: 'datasource', query: 'prometheus' },
          { definition: 'label_values(c, job)', query: { query: 'label_values(c, job)' } },
        ],
      },
    };
    expect(dashboardExpressions(dashboard)).toEqual([
      'a',
      'b',
      'label_values(c, job)',
      'label_values(c, job)',
    ]);
  });
});

describe('isExposed', () => {
  const exposed = exposedNames(
    [
      '# HELP h_seconds a histogram',
      '# TYPE h_seconds histogram',
      'h_seconds_bucket{le="1"} 0',
      '# TYPE s summary',
      '# TYPE c_total counter',
      '# TYPE labelled_total counter',
      'g 1',
    ].join('\n'),
  );
  it.each([
    ['h_seconds_bucket', true],
    ['h_seconds_sum', true],
    ['h_seconds_count', true],
    ['s_count', true],
    ['s_bucket', false],
    ['c_total', true],
    ['labelled_total', true],
    ['g', true],
    ['c_total_count', false],
    ['missing_total', false],
  ])('%s → %s', (name, expected) => {
    expect(isExposed(name, exposed)).toBe(expected);
  });
});
