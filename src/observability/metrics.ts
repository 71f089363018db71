import { Registry, collectDefaultMetrics } from 'prom-client';

/**
 * One Prometheus registry per process (not prom-client's global one, so tests can build several
 * apps side by side). Metric names start with `hookline_`; label values never carry secrets.
 */
export function createMetricsRegistry(options: { defaultMetrics?: boolean } = {}): Registry {
  const registry = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry, prefix: 'hookline_' });
  return registry;
}
