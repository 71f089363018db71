import type { ClusterEndpoints, ClusterKind } from '../../tools/devstack';
import type { Harness } from '../harness/client';

/** What every scenario gets from bench/run.ts. */
export interface BenchContext {
  cluster: ClusterEndpoints & { kind: ClusterKind };
  /** The harness process: tracking clients and webhook receivers. */
  harness: Harness;
  /** Multiplies every event count (`--scale=0.5` for a quicker, noisier run). */
  scale: number;
  /** Profile the process under test during the measured phases (`--profile`). */
  profile: boolean;
  /** Extra Hookline settings for experiments (`--app-env=KEY=VALUE`); they win over a scenario's. */
  appEnv: Record<string, string>;
  /** Where results and profiles are written. */
  resultsDir: string;
  /** A progress line on stderr. */
  log(message: string): void;
}

/** One measured number. */
export interface Figure {
  label: string;
  value: number;
  unit: string;
  /** How it was obtained, in a few words (shown beside the value). */
  detail?: string;
}

/** A figure held against the target. */
export interface Check {
  label: string;
  value: number;
  unit: string;
  target: number;
  /** `min`: value ≥ target is good; `max`: value ≤ target is good. */
  kind: 'min' | 'max';
  met: boolean;
}

export interface ScenarioResult {
  figures: Figure[];
  checks: Check[];
  notes: string[];
}

/** A benchmark scenario: its own module, run on its own topic prefix and app instance. */
export interface Scenario {
  name: string;
  title: string;
  /** Time it needs beyond the bench's usual limit (a long scenario, e.g. `backlog`); added to the watchdog. */
  budgetMs?(ctx: Pick<BenchContext, 'scale'>): number;
  run(ctx: BenchContext): Promise<ScenarioResult>;
}

export function check(
  label: string,
  value: number,
  unit: string,
  kind: Check['kind'],
  target: number,
): Check {
  const met = kind === 'min' ? value >= target : value <= target;
  return { label, value, unit, kind, target, met };
}

/** Event counts scaled by --scale, never below `floor`. */
export function scaled(ctx: Pick<BenchContext, 'scale'>, count: number, floor = 100): number {
  return Math.max(floor, Math.round(count * ctx.scale));
}
