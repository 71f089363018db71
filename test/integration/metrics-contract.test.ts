import { readFileSync } from 'node:fs';
import path from 'node:path';
import { eventually } from '../support/eventually';
import { createDestination, createSource, sendTracking } from '../support/hookline';
import { prometheusBinary, startPrometheus } from '../support/prometheus';
import {
  dashboardExpressions,
  exposedNames,
  isExposed,
  metricNames,
  ruleExpressions,
} from '../support/promql-names';
import { testScope } from '../support/scope';
import type { TestApp } from '../support/app';

const ROOT = path.resolve(__dirname, '../..');
const RULES = path.join(ROOT, 'ops/prometheus/alerts.yml');
const DASHBOARD = path.join(ROOT, 'ops/grafana/dashboards/hookline.json');
/** Exported by Prometheus itself, not by Hookline. */
const NOT_HOOKLINE = new Set(['up']);

/**
 * The metric names the alert rules and the Grafana dashboard use must be metrics Hookline really
 * exports: renaming a metric in src/ would otherwise silently blind an alert or a panel.
 */
describe('the metrics named by ops/ (alerts and dashboard) exist', () => {
  const scope = testScope();

  /** A source, a destination on a loopback receiver, a few events, one failed attempt. */
  async function withTraffic(): Promise<TestApp> {
    const t = await scope.app();
    const receiver = await scope.receiver((_req, index) => ({ status: index === 0 ? 500 : 200 }));
    const src = await createSource(t);
    await createDestination(t, { sourceId: src.id, webhooks: [{ url: receiver.url }] });
    for (let i = 0; i < 3; i++) {
      const res = await sendTracking(t, src.writeKey, '/v1/track', { userId: `u${i}`, event: 'E' });
      expect(res.status).toBe(200);
    }
    await eventually(
      async () => {
        const text = await (await fetch(`${t.baseUrl}/metrics`)).text();
        return /hookline_delivery_attempts_total\{[^}]*result="http_5xx"/.test(text) &&
          /hookline_delivery_attempts_total\{[^}]*result="success"/.test(text)
          ? text
          : undefined;
      },
      { what: 'a failed and a successful attempt in /metrics', timeoutMs: 45_000, intervalMs: 250 },
    );
    return t;
  }

  it('every metric in the alert rules and the dashboard is in /metrics', async () => {
    const t = await withTraffic();
    const exposed = exposedNames(await (await fetch(`${t.baseUrl}/metrics`)).text());

    const referenced = new Map<string, string>(); // name -> where
    for (const expr of ruleExpressions(readFileSync(RULES, 'utf8'))) {
      for (const name of metricNames(expr)) referenced.set(name, 'ops/prometheus/alerts.yml');
    }
    for (const expr of dashboardExpressions(JSON.parse(readFileSync(DASHBOARD, 'utf8')))) {
      for (const name of metricNames(expr)) referenced.set(name, 'ops/grafana/dashboards/hookline.json');
    }
    // Guards the extraction itself: a parser that finds nothing would pass vacuously.
    expect(referenced.size).toBeGreaterThan(15);

    const missing = [...referenced]
      .filter(([name]) => !NOT_HOOKLINE.has(name) && !isExposed(name, exposed))
      .map(([name, where]) => `${name} (${where})`);
    expect(missing).toEqual([]);
  });

  const bin = prometheusBinary();
  if (!bin && process.env.HOOKLINE_REQUIRE_PROMETHEUS === '1') {
    it('needs a prometheus binary (HOOKLINE_REQUIRE_PROMETHEUS=1)', () => {
      throw new Error('no prometheus on PATH (Debian package `prometheus`) nor HOOKLINE_PROMETHEUS_BIN');
    });
  }
  (bin ? it : it.skip)(
    'a real Prometheus scrapes Hookline and evaluates every alert rule without error',
    async () => {
      const t = await withTraffic();
      const prometheus = await startPrometheus({
        bin: bin!,
        targets: [new URL(t.baseUrl).host],
        ruleFiles: [RULES],
      });
      try {
        // Scraped: Hookline's own series are in Prometheus.
        await eventually(
          async () => {
            const data = await prometheus.api<{ result: { value: [number, string] }[] }>(
              `query?query=${encodeURIComponent('sum(hookline_delivery_attempts_total)')}`,
            );
            return data.result.length === 1 && Number(data.result[0].value[1]) >= 2;
          },
          { what: 'Prometheus to have scraped the attempts', timeoutMs: 30_000, intervalMs: 250 },
        );
        // Every rule of alerts.yml evaluated (after that scrape) without an error.
        type Rules = { groups: { rules: { name: string; health: string; lastError?: string }[] }[] };
        const rules = await eventually(
          async () => {
            const data = await prometheus.api<Rules>('rules');
            const all = data.groups.flatMap((g) => g.rules);
            return all.length > 0 && all.every((r) => r.health !== 'unknown') ? all : undefined;
          },
          { what: 'every rule to be evaluated', timeoutMs: 30_000, intervalMs: 250 },
        );
        expect(rules.filter((r) => r.health !== 'ok')).toEqual([]);
        expect(rules.length).toBe(ruleExpressions(readFileSync(RULES, 'utf8')).length);
        // A ratio as the success-ratio alert computes it, over Hookline's real series (the counters
        // stopped moving once the traffic was done, so over their totals rather than their rates):
        // one failed attempt among successes is a fraction strictly between 0 and 1.
        const data = await prometheus.api<{ result: { value: [number, string] }[] }>(
          `query?query=${encodeURIComponent(
            '(sum(hookline_delivery_attempts_total{result="success"}) or vector(0)) / sum(hookline_delivery_attempts_total)',
          )}`,
        );
        const ratio = Number(data.result[0]?.value[1]);
        expect(ratio).toBeGreaterThan(0);
        expect(ratio).toBeLessThan(1);
      } finally {
        await prometheus.stop();
      }
    },
  );
});
