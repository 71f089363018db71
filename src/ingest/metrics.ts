import { Counter, Histogram, type Registry } from 'prom-client';

export interface IngestMetrics {
  requests: Counter<'route' | 'status'>;
  events: Counter<'type' | 'outcome'>;
  requestSeconds: Histogram<'route'>;
}

export function createIngestMetrics(registry: Registry): IngestMetrics {
  return {
    requests: new Counter({
      name: 'hookline_ingest_requests_total',
      help: 'Tracking API requests by route and HTTP status.',
      labelNames: ['route', 'status'],
      registers: [registry],
    }),
    events: new Counter({
      name: 'hookline_ingest_events_total',
      help: 'Events received by the tracking API, by call type and outcome (accepted, rejected).',
      labelNames: ['type', 'outcome'],
      registers: [registry],
    }),
    requestSeconds: new Histogram({
      name: 'hookline_ingest_request_duration_seconds',
      help: 'Tracking API request duration, including the wait for Kafka acknowledgement.',
      labelNames: ['route'],
      buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
  };
}
