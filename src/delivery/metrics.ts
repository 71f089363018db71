import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export function createDeliveryMetrics(registry: Registry) {
  return {
    deliveries: new Counter<'destination_id' | 'outcome'>({
      name: 'hookline_deliveries_total',
      help: 'Delivery task outcomes per destination: delivered, retry_scheduled, dead_lettered, deferred.',
      labelNames: ['destination_id', 'outcome'],
      registers: [registry],
    }),
    attempts: new Counter<'destination_id' | 'result'>({
      name: 'hookline_delivery_attempts_total',
      help: 'HTTP requests to destination URLs by result: success, http_4xx, http_5xx, timeout, connection, tls, blocked_address (refused by the SSRF guard, never sent).',
      labelNames: ['destination_id', 'result'],
      registers: [registry],
    }),
    attemptSeconds: new Histogram<'destination_id'>({
      name: 'hookline_delivery_attempt_duration_seconds',
      help: 'Duration of one HTTP request to a destination URL.',
      labelNames: ['destination_id'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    endToEndSeconds: new Histogram({
      name: 'hookline_delivery_latency_seconds',
      help: 'From receipt of the event by Hookline to its successful delivery (all attempts included).',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 300, 3_600, 14_400],
      registers: [registry],
    }),
    inFlight: new Gauge({
      name: 'hookline_delivery_in_flight',
      help: 'Delivery tasks being attempted now.',
      registers: [registry],
    }),
    deadLettered: new Counter<'reason'>({
      name: 'hookline_dead_lettered_total',
      help: 'Tasks moved to the dead-letter topic, by reason.',
      labelNames: ['reason'],
      registers: [registry],
    }),
    urlsDisabled: new Counter<'destination_id'>({
      name: 'hookline_webhook_urls_disabled_total',
      help: 'Webhook URLs Hookline stopped calling because they answered 410 Gone.',
      labelNames: ['destination_id'],
      registers: [registry],
    }),
    retriesScheduled: new Counter<'tier'>({
      name: 'hookline_retries_scheduled_total',
      help: 'Failed tasks handed to a delay topic, by tier (its delay).',
      labelNames: ['tier'],
      registers: [registry],
    }),
  };
}

export type DeliveryMetrics = ReturnType<typeof createDeliveryMetrics>;
