/**
 * HOOKLINE_WORKERS > 1: the primary process forks that many children (node:cluster), each running
 * the whole app (main.ts → compose/). They share the HTTP port (the primary accepts connections
 * and hands them out round-robin) and, as members of the same consumer groups, the partitions of
 * the router and child roles. The primary restarts a child that exits (after a backoff), answers
 * the children's questions that span all of them (the aggregated /metrics, whether all are up),
 * passes their attempt queries to the one child that keeps the attempt index (attempt-relay.ts;
 * a child restarted in its place keeps it again), and on SIGTERM/SIGINT lets every child drain and
 * waits for them before it exits.
 *
 * Words: the primary forks *children* (node:cluster's API calls them workers: `nodeCluster.workers`);
 * "worker" is only the delivery role, "group" only a Kafka consumer group, "cluster" only Kafka's.
 */
import nodeCluster, { type Worker as Child } from 'node:cluster';
import { randomUUID } from 'node:crypto';
import { AttemptQueryRelay } from './attempt-relay';
import { ChildMetricsLedger } from './metrics-ledger';
import {
  ATTEMPT_INDEX_DUTY_ENV,
  CHILD_MESSAGES,
  type AttemptsAnswer,
  type MetricsSnapshotMessage,
  type PrimaryReply,
  type ChildRequest,
  type ChildStarted,
} from './messages';
import type { Logger } from '../observability/logger';

export interface ForkChildrenOptions {
  count: number;
  /** The children's environment: what the primary resolved (Kafka cluster, keys, token) included. */
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** Called once, when every child has started for the first time. */
  onAllStarted(ports: { httpPort: number; adminPort: number | undefined }): void;
  /**
   * Called when a child exits before every child has started once (a failed start-up, such as
   * refused Kafka credentials): restarting it would only hide the failure from the orchestrator,
   * so the caller stops the children and exits, as one process would. Children are not restarted then.
   */
  onStartFailed(code: number | null, signal: string | null): void;
}

export interface Children {
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

export function forkChildren(options: ForkChildrenOptions): Children {
  const { count, logger } = options;
  const ledger = new ChildMetricsLedger();
  /** Metrics snapshots asked of children and not answered yet, by request id. */
  const snapshotsAsked = new Map<string, () => void>();
  const started = new Set<number>();
  const startedAt = new Map<number, number>();
  let announced = false;
  let stopping = false;
  let restartDelayMs = RESTART_DELAY_MS;
  const relay = new AttemptQueryRelay({ timeoutMs: ATTEMPT_QUERY_TIMEOUT_MS });
  /** The child that keeps the attempt index (its node:cluster id). */
  let keeperId: number | undefined;

  const fork = (keepsAttemptIndex: boolean) => {
    const child = nodeCluster.fork({
      ...options.env,
      [ATTEMPT_INDEX_DUTY_ENV]: keepsAttemptIndex ? 'keep' : 'ask',
    });
    if (keepsAttemptIndex) keeperId = child.id;
    startedAt.set(child.id, Date.now());
    logger.info({ child: child.id, pid: child.process.pid, keepsAttemptIndex }, 'child process forked');
  };

  /** Asks every connected child for its metrics; resolves when all answered or timed out. */
  const gatherMetrics = async (): Promise<string> => {
    const children = Object.values(nodeCluster.workers ?? {}).filter(
      (c): c is Child => c !== undefined && c.isConnected(),
    );
    await Promise.all(
      children.map(
        (c) =>
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
            peer(c).send({ type: CHILD_MESSAGES.metricsSnapshot, id } satisfies MetricsSnapshotMessage);
          }),
      ),
    );
    return ledger.text();
  };

  nodeCluster.on(
    'message',
    (child: Child, message: ChildRequest | ChildStarted | AttemptsAnswer | MetricsSnapshotMessage) => {
      if (message?.type === CHILD_MESSAGES.metricsSnapshot) {
        const answered = snapshotsAsked.get(message.id);
        if (!answered || message.metrics === undefined) return;
        snapshotsAsked.delete(message.id);
        ledger.report(child.id, message.metrics);
        answered();
      } else if (message?.type === CHILD_MESSAGES.attempts) {
        relay.ask(peer(child), message);
      } else if (message?.type === CHILD_MESSAGES.attemptsAnswer) {
        relay.answered(message);
      } else if (message?.type === CHILD_MESSAGES.started) {
        if (child.id === keeperId) relay.keeperStarted(peer(child));
        started.add(child.id);
        if (!announced && started.size >= count) {
          announced = true;
          options.onAllStarted({ httpPort: message.httpPort, adminPort: message.adminPort });
        }
      } else if (message?.type === CHILD_MESSAGES.metrics) {
        gatherMetrics().then(
          (text) => reply(child, { id: message.id, text }),
          (err: Error) => reply(child, { id: message.id, error: err.message }),
        );
      } else if (message?.type === CHILD_MESSAGES.ready) {
        const live = Object.values(nodeCluster.workers ?? {}).filter((c) => c && started.has(c.id)).length;
        reply(child, { id: message.id, ready: !stopping && live >= count });
      }
    },
  );

  nodeCluster.on('exit', (child, code, signal) => {
    started.delete(child.id);
    void ledger.retire(child.id);
    const keptAttemptIndex = child.id === keeperId;
    if (keptAttemptIndex) {
      keeperId = undefined;
      relay.keeperGone();
    }
    const ranMs = Date.now() - (startedAt.get(child.id) ?? Date.now());
    startedAt.delete(child.id);
    if (stopping) return;
    if (!announced) {
      stopping = true;
      logger.fatal(
        { child: child.id, pid: child.process.pid, code, signal },
        'child process failed to start',
      );
      options.onStartFailed(code, signal);
      return;
    }
    if (ranMs >= STABLE_AFTER_MS) restartDelayMs = RESTART_DELAY_MS;
    logger.error(
      { child: child.id, pid: child.process.pid, code, signal, restartInMs: restartDelayMs },
      'child process exited; restarting it',
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
      const children = Object.values(nodeCluster.workers ?? {}).filter((c): c is Child => c !== undefined);
      await Promise.all(
        children.map(
          (c) =>
            new Promise<void>((resolve) => {
              if (c.isDead()) return resolve();
              c.once('exit', () => resolve());
              c.process.kill('SIGTERM');
            }),
        ),
      );
    },
  };
}

function reply(child: Child, message: PrimaryReply): void {
  peer(child).send(message);
}

/** A child as the relay sees it: messages to a child that is gone are dropped. */
const peer = (child: Child) => ({
  send: (message: object) => {
    if (child.isConnected()) child.send(message);
  },
});
