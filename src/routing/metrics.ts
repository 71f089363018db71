import { Counter, type Registry } from 'prom-client';

export type RouterOutcome = 'routed' | 'filtered' | 'duplicate' | 'undecodable';

export function createRouterMetrics(registry: Registry) {
  return {
    events: new Counter<'outcome'>({
      name: 'hookline_router_events_total',
      help: 'Events read by the router: routed to at least one destination, filtered (none), duplicate, undecodable.',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    tasks: new Counter({
      name: 'hookline_router_tasks_total',
      help: 'Delivery tasks written to the deliveries topic.',
      registers: [registry],
    }),
  };
}

export type RouterMetrics = ReturnType<typeof createRouterMetrics>;
