import type { Check, Figure, ScenarioResult } from './scenario';

export interface ScenarioRecord {
  name: string;
  title: string;
  durationMs: number;
  result?: ScenarioResult;
  error?: string;
}

export interface BenchReport {
  startedAt: string;
  durationMs: number;
  machine: { cpus: number; node: string; platform: string; loadAverage: number[] };
  cluster: { kind: string; kafkaBrokers: string[] };
  scale: number;
  /** Settings given with --app-env (none in a standard run). */
  appEnv: Record<string, string>;
  scenarios: ScenarioRecord[];
  /** Checks whose target was missed, as "scenario: label". */
  missed: string[];
}

/** Numbers as people read them: 12,345 · 1,234.5 · 12.3 · 0.123. */
export function formatNumber(value: number): string {
  if (value === Number.POSITIVE_INFINITY) return '∞';
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  const digits = abs >= 1_000 ? 0 : abs >= 100 ? 1 : abs >= 1 ? 2 : 3;
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function formatValue(value: number, unit: string): string {
  if (unit === '×') return `${formatNumber(value)}×`;
  return unit === '' ? formatNumber(value) : `${formatNumber(value)} ${unit}`;
}

function figureLine(f: Figure): string {
  return `  ${f.label.padEnd(42)} ${formatValue(f.value, f.unit).padStart(18)}${f.detail ? `   ${f.detail}` : ''}`;
}

function checkLine(scenario: string, c: Check): string {
  const target = `${c.kind === 'min' ? '≥' : '≤'} ${formatValue(c.target, c.unit)}`;
  const verdict = c.met ? 'ok' : 'MISSED';
  return `  ${`${scenario}: ${c.label}`.padEnd(54)} ${formatValue(c.value, c.unit).padStart(12)}   ${target.padEnd(12)} ${verdict}`;
}

/** The printed report: one block per scenario, then every check against its target. */
export function formatReport(report: BenchReport): string {
  const lines: string[] = [];
  lines.push('');
  lines.push(
    `Hookline bench — ${report.startedAt} — ${report.machine.cpus} CPUs, Node ${report.machine.node}, ` +
      `${report.cluster.kind} cluster (${report.cluster.kafkaBrokers.join(',')}), scale ${report.scale}, ` +
      `${Math.round(report.durationMs / 1_000)} s`,
  );
  const overrides = Object.entries(report.appEnv).map(([k, v]) => `${k}=${v}`);
  if (overrides.length > 0)
    lines.push(`Hookline settings changed for this run (not a standard result): ${overrides.join(' ')}`);
  for (const s of report.scenarios) {
    lines.push('');
    lines.push(`== ${s.name}: ${s.title} (${Math.round(s.durationMs / 1_000)} s)`);
    if (s.error) {
      lines.push(`  FAILED: ${s.error}`);
      continue;
    }
    for (const f of s.result!.figures) lines.push(figureLine(f));
    for (const n of s.result!.notes) lines.push(n.startsWith('  ') ? n : `  · ${n}`);
  }
  lines.push('');
  lines.push(
    'Targets (every figure is a ratio to a baseline measured in this run, except latency and retry lateness)',
  );
  lines.push(`  ${'check'.padEnd(54)} ${'value'.padStart(12)}   ${'target'.padEnd(12)} verdict`);
  for (const s of report.scenarios) {
    if (s.error) lines.push(`  ${`${s.name}: (failed)`.padEnd(54)} ${'—'.padStart(12)}`);
    for (const c of s.result?.checks ?? []) lines.push(checkLine(s.name, c));
  }
  for (const m of report.missed) lines.push(`warning: target missed — ${m}`);
  return lines.join('\n');
}
