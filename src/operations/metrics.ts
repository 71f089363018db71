import { Counter, Gauge, type Registry } from 'prom-client';

export interface OperationsMetricsSources {
  dlqCounts(): { pendingTasks: number; undecodable: number };
  /**
   * The attempt log's kept attempts: how many, and the bytes its budget counts. Absent in a
   * process that asks another's index: it then has no `hookline_attempt_index_*` gauges.
   */
  attemptsKept: (() => { count: number; bytes: number; read: number }) | undefined;
}

export function createOperationsMetrics(registry: Registry, sources: OperationsMetricsSources) {
  new Gauge<'kind'>({
    name: 'hookline_dlq_pending',
    help: 'Dead letters on the dead-letter topic not redriven yet: kind=task (redrivable) or undecodable.',
    labelNames: ['kind'],
    registers: [registry],
    collect() {
      const counts = sources.dlqCounts();
      this.set({ kind: 'task' }, counts.pendingTasks);
      this.set({ kind: 'undecodable' }, counts.undecodable);
    },
  });
  const { attemptsKept } = sources;
  if (attemptsKept) registerAttemptIndexGauges(registry, attemptsKept);
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

function registerAttemptIndexGauges(
  registry: Registry,
  attemptsKept: () => { count: number; bytes: number; read: number },
): void {
  new Gauge({
    name: 'hookline_attempt_index_bytes',
    help: 'Memory the attempt log keeps recent attempts in, as HOOKLINE_ATTEMPT_INDEX_MAX_BYTES bounds it.',
    registers: [registry],
    collect() {
      this.set(attemptsKept().bytes);
    },
  });
  new Counter({
    name: 'hookline_attempt_index_read_total',
    help:
      'Attempt records the attempt index read from the attempts topic: its window at start, that of ' +
      'partitions new to this process at each new share of a shared index, then every new attempt.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(attemptsKept().read);
    },
  });
  new Gauge({
    name: 'hookline_attempt_index_attempts',
    help: 'Recent attempts the attempt log keeps, all destinations.',
    registers: [registry],
    collect() {
      this.set(attemptsKept().count);
    },
  });
}

export type OperationsMetrics = ReturnType<typeof createOperationsMetrics>;
