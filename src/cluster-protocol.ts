/**
 * Messages between the primary and its children (HOOKLINE_WORKERS > 1), and how each gauge
 * combines across children on the one /metrics. Counters and histograms add up (prom-client's
 * default `sum`); a gauge every process computes for the whole cluster would be counted N times.
 */
export const WORKER_MESSAGES = {
  started: 'hookline:worker-started',
  metrics: 'hookline:metrics',
  ready: 'hookline:workers-ready',
} as const;

export type WorkerRequest = {
  type: typeof WORKER_MESSAGES.metrics | typeof WORKER_MESSAGES.ready;
  id: string;
};
export type WorkerReply = { id: string; text?: string; ready?: boolean; error?: string };
export type WorkerStarted = { type: typeof WORKER_MESSAGES.started; httpPort: number; adminPort?: number };

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
