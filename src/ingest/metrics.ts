import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { IngestAdmission } from './admission';

export interface IngestMetrics {
  requests: Counter<'route' | 'status'>;
  events: Counter<'type' | 'outcome'>;
  requestSeconds: Histogram<'route'>;
  refused: Counter<'reason'>;
}

/** The tracking API's metrics; `admission` feeds the in-flight and queued gauges. */
export function createIngestMetrics(registry: Registry, admission?: IngestAdmission): IngestMetrics {
  if (admission) {
    new Gauge({
      name: 'hookline_ingest_in_flight_requests',
      help: 'Tracking API requests being handled (at most HOOKLINE_INGEST_CONCURRENCY).',
      registers: [registry],
      collect() {
        this.set(admission.inFlight);
      },
    });
    new Gauge({
      name: 'hookline_ingest_queued_requests',
      help: 'Tracking API requests waiting in the admission queue (at most HOOKLINE_INGEST_QUEUE).',
      registers: [registry],
      collect() {
        this.set(admission.queued);
      },
    });
  }
  return {
    requests: new Counter({
      name: 'hookline_ingest_requests_total',
      help:
        'Tracking API requests by route and HTTP status (499: the client closed the connection ' +
        'before sending its whole body).',
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
      help:
        'Tracking API request duration from arrival (connection accepted, or headers read on a ' +
        'kept-alive connection) to the answer: the wait in the admission queue, then the wait for ' +
        'Kafka acknowledgement. Refused (503) requests included.',
      labelNames: ['route'],
      buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    refused: new Counter({
      name: 'hookline_ingest_refused_requests_total',
      help:
        'Tracking API requests answered 503 + Retry-After by the admission queue: queue_full ' +
        '(refused at once) or queue_timeout (waited HOOKLINE_INGEST_QUEUE_TIMEOUT).',
      labelNames: ['reason'],
      registers: [registry],
    }),
  };
}
