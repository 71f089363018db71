/**
 * Draws a bench report's checks as one SVG bar chart (docs/performance.svg), by hand: no
 * plotting dependency. Each bar is a check's value measured against its target, scaled so that
 * 1 is the target and more is better whatever the check's direction (a throughput ratio over
 * its target, a latency target over the latency).
 *
 *   npx tsx bench/plot.ts                      # the newest report in bench/results → docs/performance.svg
 *   npx tsx bench/plot.ts bench/results/latest.json docs/performance.svg
 *
 * The newest report is bench/results/latest.json when a run left one, else the last dated
 * bench/results/YYYY-MM-DD-*.json by name.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { formatNumber, type BenchReport } from './lib/report';
import type { Check } from './lib/scenario';

const ROOT = path.resolve(__dirname, '..');
const RESULTS_DIR = path.join(ROOT, 'bench', 'results');
const DEFAULT_OUT = path.join(ROOT, 'docs', 'performance.svg');

/** Bars are drawn up to this many times the target; longer ones are cut and marked. */
export const SCALE_MAX = 3;
const WIDTH = 1100;
const LABEL_WIDTH = 440;
const BAR_WIDTH = 360;
const ROW_HEIGHT = 24;
const TOP = 64;
const BOTTOM = 48;

export interface PlotRow {
  label: string;
  /** Value against target, 1 = the target, more is better. */
  score: number;
  met: boolean;
  text: string;
}

/** How far a check is from its target: 1 at the target, above 1 when better than it. */
export function score(c: Pick<Check, 'value' | 'target' | 'kind'>): number {
  if (c.kind === 'min') return c.target === 0 ? Number.POSITIVE_INFINITY : c.value / c.target;
  if (c.value <= 0) return c.value <= c.target ? Number.POSITIVE_INFINITY : 0;
  return c.target / c.value;
}

function unitText(value: number, unit: string): string {
  return unit === '×' ? `${formatNumber(value)}×` : `${formatNumber(value)} ${unit}`;
}

/** One row per check of every scenario that ran, in the report's order. */
export function plotRows(report: BenchReport): PlotRow[] {
  return report.scenarios.flatMap((s) =>
    (s.result?.checks ?? []).map((c) => ({
      label: `${s.name}: ${c.label}`,
      score: score(c),
      met: c.met,
      text: `${unitText(c.value, c.unit)} (target ${c.kind === 'min' ? '≥' : '≤'} ${unitText(c.target, c.unit)})`,
    })),
  );
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

function barLength(s: number): number {
  const clipped = Math.min(Number.isFinite(s) ? s : SCALE_MAX, SCALE_MAX);
  return Math.max(0, (clipped / SCALE_MAX) * BAR_WIDTH);
}

/** The whole chart as an SVG document. */
export function plotSvg(report: BenchReport): string {
  const rows = plotRows(report);
  const height = TOP + rows.length * ROW_HEIGHT + BOTTOM;
  const x0 = LABEL_WIDTH;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    `<text x="12" y="22" font-size="15" font-weight="bold">Hookline bench: each check against its target (1 = target, longer is better)</text>`,
    `<text x="12" y="42" fill="#555555">${escapeXml(
      `run of ${report.startedAt.slice(0, 10)}, ${report.machine.cpus} CPUs, Node ${report.machine.node}; ` +
        `green met, orange missed; bars cut at ${SCALE_MAX}×`,
    )}</text>`,
  );
  for (const [i, tick] of [0, 1, 2, 3].entries()) {
    const x = x0 + barLength(tick);
    out.push(
      `<line x1="${x}" y1="${TOP - 6}" x2="${x}" y2="${TOP + rows.length * ROW_HEIGHT}" stroke="${tick === 1 ? '#333333' : '#dddddd'}" stroke-width="${tick === 1 ? 1.5 : 1}"${tick === 1 ? ' stroke-dasharray="4 3"' : ''}/>`,
      `<text x="${x}" y="${TOP + rows.length * ROW_HEIGHT + 16}" text-anchor="middle" fill="#555555">${i === 1 ? 'target' : `${tick}×`}</text>`,
    );
  }
  rows.forEach((row, i) => {
    const y = TOP + i * ROW_HEIGHT;
    const len = barLength(row.score);
    const cut = !Number.isFinite(row.score) || row.score > SCALE_MAX;
    out.push(
      `<text x="${x0 - 8}" y="${y + 16}" text-anchor="end">${escapeXml(row.label)}</text>`,
      `<rect x="${x0}" y="${y + 5}" width="${len.toFixed(1)}" height="${ROW_HEIGHT - 10}" fill="${row.met ? '#2e9d57' : '#e8892c'}"/>`,
      `<text x="${x0 + len + 6}" y="${y + 16}" fill="#333333">${escapeXml(`${cut ? '» ' : ''}${row.text}`)}</text>`,
    );
  });
  out.push(
    `<text x="12" y="${height - 10}" fill="#777777">Drawn by bench/plot.ts from the bench's results; figures are ratios to baselines measured in the same run, except latencies and memory.</text>`,
    '</svg>',
  );
  return `${out.join('\n')}\n`;
}

/** bench/results/latest.json when present, else the last dated report by name. */
export async function newestReport(dir: string): Promise<string> {
  const names = await fs.readdir(dir);
  if (names.includes('latest.json')) return path.join(dir, 'latest.json');
  const dated = names.filter((n) => /^\d{4}-\d{2}-\d{2}-.*\.json$/.test(n)).sort();
  const last = dated[dated.length - 1];
  if (last === undefined) throw new Error(`no bench report in ${dir}: run npm run bench first`);
  return path.join(dir, last);
}

async function main(): Promise<void> {
  const [input, output] = process.argv.slice(2);
  const file = input ?? (await newestReport(RESULTS_DIR));
  const report = JSON.parse(await fs.readFile(file, 'utf8')) as BenchReport;
  const target = output ?? DEFAULT_OUT;
  await fs.writeFile(target, plotSvg(report));
  process.stdout.write(
    `plotted ${path.relative(process.cwd(), file)} → ${path.relative(process.cwd(), target)}\n`,
  );
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`plot: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
