import { Counter, Gauge, type Registry } from 'prom-client';

export function createOperationsMetrics(
  registry: Registry,
  dlqCounts: () => { pendingTasks: number; undecodable: number },
) {
  new Gauge<'kind'>({
    name: 'hookline_dlq_pending',
    help: 'Dead letters on the dead-letter topic not redriven yet: kind=task (redrivable) or undecodable.',
    labelNames: ['kind'],
    registers: [registry],
    collect() {
      const counts = dlqCounts();
      this.set({ kind: 'task' }, counts.pendingTasks);
      this.set({ kind: 'undecodable' }, counts.undecodable);
    },
  });
  return {
    redriven: new Counter<'destination_id'>({
      name: 'hookline_redriven_total',
      help: 'Dead-lettered tasks redriven (written again to the deliveries topic as fresh tasks).',
      labelNames: ['destination_id'],
      registers: [registry],
    }),
    replayedTasks: new Counter<'destination_id'>({
      name: 'hookline_replayed_tasks_total',
      help: 'Delivery tasks written by replays of the events topic.',
      labelNames: ['destination_id'],
      registers: [registry],
    }),
  };
}

export type OperationsMetrics = ReturnType<typeof createOperationsMetrics>;
