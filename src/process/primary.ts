/**
 * HOOKLINE_WORKERS > 1: the primary process forks that many children (node:cluster), each running
 * the whole app (main.ts → compose.ts). They share the HTTP port (the primary accepts connections
 * and hands them out round-robin) and, as members of the same consumer groups, the partitions of
 * the router and worker roles. The primary restarts a child that exits (after a backoff), answers
 * the children's questions that span all of them (the aggregated /metrics, whether all are up),
 * passes their attempt queries to the one child that keeps the attempt index (attempt-relay.ts;
 * a child restarted in its place keeps it again), and on SIGTERM/SIGINT lets every child drain and
 * waits for them before it exits.
 */
import cluster, { type Worker } from 'node:cluster';
import { randomUUID } from 'node:crypto';
import { AttemptQueryRelay } from './attempt-relay';
import { ClusterMetricsLedger } from './metrics-ledger';
import {
  ATTEMPT_INDEX_DUTY_ENV,
  WORKER_MESSAGES,
  type AttemptsAnswer,
  type MetricsSnapshotMessage,
  type WorkerReply,
  type WorkerRequest,
  type WorkerStarted,
} from './messages';
import type { Logger } from '../observability/logger';

export interface WorkerGroupOptions {
  count: number;
  /** The children's environment: what the primary resolved (cluster, keys, token) included. */
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** Called once, when every child has started for the first time. */
  onAllStarted(ports: { httpPort: number; adminPort: number | undefined }): void;
  /**
   * Called when a child exits before every child has started once (a failed start-up, such as
   * refused Kafka credentials): restarting it would only hide the failure from the orchestrator,
   * so the caller stops the group and exits, as one process would. Children are not restarted then.
   */
  onStartFailed(code: number | null, signal: string | null): void;
}

export interface WorkerGroup {
  /** Asks every child to drain (SIGTERM) and resolves once all have exited. */
  stop(): Promise<void>;
}

/** First delay before a crashed child is restarted; it doubles while children keep crashing. */
const RESTART_DELAY_MS = 1_000;
const MAX_RESTART_DELAY_MS = 30_000;
/** A child that ran this long resets the backoff. */
const STABLE_AFTER_MS = 60_000;
/** An attempt query the keeping child has not answered in this long gets an error. */
const ATTEMPT_QUERY_TIMEOUT_MS = 10_000;
/** A child that has not given its metrics in this long counts with its previous snapshot. */
const METRICS_SNAPSHOT_TIMEOUT_MS = 2_000;

export function startWorkerGroup(options: WorkerGroupOptions): WorkerGroup {
  const { count, logger } = options;
  const ledger = new ClusterMetricsLedger();
  /** Metrics snapshots asked of children and not answered yet, by request id. */
  const snapshotsAsked = new Map<string, () => void>();
  const started = new Set<number>();
  const startedAt = new Map<number, number>();
  let announced = false;
  let stopping = false;
  let restartDelayMs = RESTART_DELAY_MS;
  const relay = new AttemptQueryRelay({ timeoutMs: ATTEMPT_QUERY_TIMEOUT_MS });
  /** The child that keeps the attempt index (`cluster.worker` id). */
  let keeperId: number | undefined;

  const fork = (keepsAttemptIndex: boolean) => {
    const worker = cluster.fork({
      ...options.env,
      [ATTEMPT_INDEX_DUTY_ENV]: keepsAttemptIndex ? 'keep' : 'ask',
    });
    if (keepsAttemptIndex) keeperId = worker.id;
    startedAt.set(worker.id, Date.now());
    logger.info({ worker: worker.id, pid: worker.process.pid, keepsAttemptIndex }, 'worker process forked');
  };

  /** Asks every connected child for its metrics; resolves when all answered or timed out. */
  const gatherMetrics = async (): Promise<string> => {
    const children = Object.values(cluster.workers ?? {}).filter(
      (w): w is Worker => w !== undefined && w.isConnected(),
    );
    await Promise.all(
      children.map(
        (w) =>
          new Promise<void>((resolve) => {
            const id = randomUUID();
            const timer = setTimeout(() => {
              snapshotsAsked.delete(id);
              resolve();
            }, METRICS_SNAPSHOT_TIMEOUT_MS);
            snapshotsAsked.set(id, () => {
              clearTimeout(timer);
              resolve();
            });
            peer(w).send({ type: WORKER_MESSAGES.metricsSnapshot, id } satisfies MetricsSnapshotMessage);
          }),
      ),
    );
    return ledger.text();
  };

  cluster.on(
    'message',
    (worker: Worker, message: WorkerRequest | WorkerStarted | AttemptsAnswer | MetricsSnapshotMessage) => {
      if (message?.type === WORKER_MESSAGES.metricsSnapshot) {
        const answered = snapshotsAsked.get(message.id);
        if (!answered || message.metrics === undefined) return;
        snapshotsAsked.delete(message.id);
        ledger.report(worker.id, message.metrics);
        answered();
      } else if (message?.type === WORKER_MESSAGES.attempts) {
        relay.ask(peer(worker), message);
      } else if (message?.type === WORKER_MESSAGES.attemptsAnswer) {
        relay.answered(message);
      } else if (message?.type === WORKER_MESSAGES.started) {
        if (worker.id === keeperId) relay.keeperStarted(peer(worker));
        started.add(worker.id);
        if (!announced && started.size >= count) {
          announced = true;
          options.onAllStarted({ httpPort: message.httpPort, adminPort: message.adminPort });
        }
      } else if (message?.type === WORKER_MESSAGES.metrics) {
        gatherMetrics().then(
          (text) => reply(worker, { id: message.id, text }),
          (err: Error) => reply(worker, { id: message.id, error: err.message }),
        );
      } else if (message?.type === WORKER_MESSAGES.ready) {
        const live = Object.values(cluster.workers ?? {}).filter((w) => w && started.has(w.id)).length;
        reply(worker, { id: message.id, ready: !stopping && live >= count });
      }
    },
  );

  cluster.on('exit', (worker, code, signal) => {
    started.delete(worker.id);
    void ledger.retire(worker.id);
    const keptAttemptIndex = worker.id === keeperId;
    if (keptAttemptIndex) {
      keeperId = undefined;
      relay.keeperGone();
    }
    const ranMs = Date.now() - (startedAt.get(worker.id) ?? Date.now());
    startedAt.delete(worker.id);
    if (stopping) return;
    if (!announced) {
      stopping = true;
      logger.fatal(
        { worker: worker.id, pid: worker.process.pid, code, signal },
        'worker process failed to start',
      );
      options.onStartFailed(code, signal);
      return;
    }
    if (ranMs >= STABLE_AFTER_MS) restartDelayMs = RESTART_DELAY_MS;
    logger.error(
      { worker: worker.id, pid: worker.process.pid, code, signal, restartInMs: restartDelayMs },
      'worker process exited; restarting it',
    );
    setTimeout(() => {
      if (!stopping) fork(keptAttemptIndex);
    }, restartDelayMs);
    restartDelayMs = Math.min(MAX_RESTART_DELAY_MS, restartDelayMs * 2);
  });

  for (let i = 0; i < count; i++) fork(i === 0);

  return {
    stop: async () => {
      stopping = true;
      const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
      await Promise.all(
        workers.map(
          (w) =>
            new Promise<void>((resolve) => {
              if (w.isDead()) return resolve();
              w.once('exit', () => resolve());
              w.process.kill('SIGTERM');
            }),
        ),
      );
    },
  };
}

function reply(worker: Worker, message: WorkerReply): void {
  peer(worker).send(message);
}

/** A child as the relay sees it: messages to a child that is gone are dropped. */
const peer = (worker: Worker) => ({
  send: (message: object) => {
    if (worker.isConnected()) worker.send(message);
  },
});
