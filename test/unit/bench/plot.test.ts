import { plotRows, plotSvg, score, SCALE_MAX } from '../../../bench/plot';
import type { BenchReport } from '../../../bench/lib/report';
import { check } from '../../../bench/lib/scenario';

describe('bench plot', () => {
  test.each([
    ['a ratio at its minimum target', { value: 0.7, target: 0.7, kind: 'min' as const }, 1],
    ['a ratio under its minimum', { value: 0.35, target: 0.7, kind: 'min' as const }, 0.5],
    ['a latency at half its maximum', { value: 25, target: 50, kind: 'max' as const }, 2],
    ['a latency over its maximum', { value: 100, target: 50, kind: 'max' as const }, 0.5],
    ['zero timeouts against a maximum of zero', { value: 0, target: 0, kind: 'max' as const }, Infinity],
    ['timeouts against a maximum of zero', { value: 3, target: 0, kind: 'max' as const }, 0],
  ])('%s', (_name, c, expected) => {
    expect(score(c)).toBeCloseTo(expected);
  });

  const report: BenchReport = {
    startedAt: '2026-11-27T21:53:00.000Z',
    durationMs: 0,
    machine: { cpus: 2, node: 'v24', platform: 'linux', loadAverage: [] },
    cluster: { kind: 'stack', kafkaBrokers: [] },
    scale: 1,
    appEnv: {},
    scenarios: [
      {
        name: 'e2e',
        title: 'end to end',
        durationMs: 0,
        result: {
          figures: [],
          checks: [
            check('delivered/s ÷ raw ceiling', 0.49, '×', 'min', 0.6),
            check('p99 <x>', 10, 'ms', 'max', 50),
          ],
          notes: [],
        },
      },
      { name: 'broken', title: 'failed', durationMs: 0, error: 'boom' },
    ],
    missed: [],
  };

  test('one row per check, failed scenarios left out, with value and target', () => {
    const rows = plotRows(report);
    expect(rows.map((r) => [r.label, r.met])).toEqual([
      ['e2e: delivered/s ÷ raw ceiling', false],
      ['e2e: p99 <x>', true],
    ]);
    expect(rows[0]!.text).toBe('0.490× (target ≥ 0.600×)');
    expect(rows[1]!.score).toBe(5);
  });

  test('the SVG escapes labels and cuts bars beyond the scale', () => {
    const svg = plotSvg(report);
    expect(svg.startsWith('<svg ')).toBe(true);
    expect(svg).toContain('e2e: p99 &#60;x&#62;');
    expect(svg).toContain(`» 10.00 ms (target ≤ 50.00 ms)`);
    expect(svg).not.toContain('<x>');
    expect(SCALE_MAX).toBe(3);
  });
});
