/**
 * Messages between the primary and its children (HOOKLINE_WORKERS > 1), and how each gauge
 * combines across children on the one /metrics. Counters and histograms add up (prom-client's
 * default `sum`); a gauge every process computes alike (the catalog, a consumer group's lag) would be counted N times.
 */
import type { MetricsSnapshot } from './metrics-ledger';
import type { AttemptQuery, AttemptsFound } from '../operations/attempts/log';

export const CHILD_MESSAGES = {
  started: 'hookline:child-started',
  metrics: 'hookline:metrics',
  /** The primary asks a child for its own metrics (as JSON), and the child answers with the same type. */
  metricsSnapshot: 'hookline:metrics-snapshot',
  ready: 'hookline:children-ready',
  /** A child asks for recent attempts; the primary passes it to the child keeping the index. */
  attempts: 'hookline:attempts',
  /** That child's answer, which the primary passes back to the asking child. */
  attemptsAnswer: 'hookline:attempts-answer',
} as const;

/**
 * Set by the primary in each child's environment: `keep` for the one child that keeps the
 * processes' attempt index, `ask` for the others. Not a setting: a child is told, not configured.
 */
export const ATTEMPT_INDEX_DUTY_ENV = 'HOOKLINE_CHILD_ATTEMPT_INDEX';

export type ChildRequest =
  { type: typeof CHILD_MESSAGES.metrics | typeof CHILD_MESSAGES.ready; id: string } | AttemptsRequest;
export type AttemptsRequest = {
  type: typeof CHILD_MESSAGES.attempts;
  id: string;
  destinationId: string;
  query: AttemptQuery;
};
export type AttemptsAnswer = {
  type: typeof CHILD_MESSAGES.attemptsAnswer;
  id: string;
  found?: AttemptsFound;
  error?: string;
};
export type PrimaryReply = {
  id: string;
  text?: string;
  ready?: boolean;
  found?: AttemptsFound;
  error?: string;
};
/** The primary's request for a child's metrics, and (with `metrics`) the child's answer. */
export type MetricsSnapshotMessage = {
  type: typeof CHILD_MESSAGES.metricsSnapshot;
  id: string;
  metrics?: MetricsSnapshot;
};
export type ChildStarted = { type: typeof CHILD_MESSAGES.started; httpPort: number; adminPort?: number };

export const METRIC_AGGREGATORS: Record<string, 'max' | 'min' | 'sum'> = {
  // Every process holds the whole catalog and reads the same lag from the broker.
  hookline_catalog_entities: 'max',
  hookline_catalog_ready: 'min',
  hookline_catalog_records_skipped_total: 'max',
  hookline_consumer_lag: 'max',
  // Every process runs the operations' dead-letter index over the whole topic.
  hookline_dlq_pending: 'max',
  // Each process has its own breaker per URL: open anywhere is open.
  hookline_destination_circuit_open: 'max',
};
