/**
 * The child side of HOOKLINE_WORKERS > 1 (see primary.ts): a child runs the whole app as
 * one process would, and asks the primary, over node:cluster's IPC channel, for what spans every
 * child: the aggregated /metrics, whether every child is up, and (in every child but the one that
 * keeps the attempt index) recent attempts.
 */
import nodeCluster from 'node:cluster';
import { randomUUID } from 'node:crypto';
import type { Registry } from 'prom-client';
import { HttpError } from '../http/respond';
import type { HttpServerOptions, ReadinessCheck } from '../http/server';
import { errorMessage } from '../core/errors';
import { AttemptIndexUnavailableError } from '../operations/errors';
import type { AttemptSource } from '../operations/attempts/log';
import {
  ATTEMPT_INDEX_DUTY_ENV,
  METRIC_AGGREGATORS,
  CHILD_MESSAGES,
  type AttemptsAnswer,
  type AttemptsRequest,
  type MetricsSnapshotMessage,
  type PrimaryReply,
  type ChildRequest,
} from './messages';

/** A child's link to its primary: what it serves for every process of HOOKLINE_WORKERS. */
export interface PrimaryLink {
  /** `/metrics`: the aggregate of every child's registry, kept by the primary (metrics-ledger.ts). */
  server: Required<Pick<HttpServerOptions, 'metricsText'>>;
  /** Ready when every child the primary runs has started. */
  readiness: ReadinessCheck;
  /**
   * The processes' one attempt index: this child keeps it (`keeps`, and then `serve`s the others'
   * questions from it), or asks the child that does (`remote`).
   */
  attempts: {
    keeps: boolean;
    remote: AttemptSource;
    /** Answers the others' questions from `source` until the returned function is called. */
    serve(source: AttemptSource): () => void;
  };
}

/** Whether this process is a child forked by the primary of HOOKLINE_WORKERS. */
export const isChildProcess = (): boolean => nodeCluster.isWorker;

const ASK_TIMEOUT_MS = 10_000;

/** Answers the primary's metric requests with `metrics`, and gives the link to the primary. */
export function linkToPrimary(metrics: Registry): PrimaryLink {
  answerMetricsSnapshots(metrics);
  const metricsText = async () => {
    const reply = await askPrimary({ type: CHILD_MESSAGES.metrics, id: randomUUID() });
    if (reply.error !== undefined || reply.text === undefined) {
      throw new HttpError(503, 'unavailable', `metrics of every child process: ${reply.error ?? 'none'}`);
    }
    return reply.text;
  };
  return {
    server: { metricsText },
    readiness: {
      // Named after HOOKLINE_WORKERS: `/readyz`'s `checks.workers` is read by probes and dashboards.
      name: 'workers',
      check: async () => (await askPrimary({ type: CHILD_MESSAGES.ready, id: randomUUID() })).ready === true,
    },
    attempts: {
      keeps: process.env[ATTEMPT_INDEX_DUTY_ENV] !== 'ask',
      remote: {
        find: async (destinationId, query) => {
          const reply = await askPrimary({
            type: CHILD_MESSAGES.attempts,
            id: randomUUID(),
            destinationId,
            query,
          });
          if (reply.error !== undefined || reply.found === undefined)
            throw new AttemptIndexUnavailableError(reply.error ?? 'no answer');
          return reply.found;
        },
      },
      serve: serveAttempts,
    },
  };
}

/**
 * Answers the attempt queries the primary passes on from the other children, until stopped: a
 * start-up tried again (start-up.ts) serves from its own, new index, never from the stopped one.
 */
function serveAttempts(source: AttemptSource): () => void {
  const onMessage = (message: Partial<AttemptsRequest> | undefined) => {
    if (message?.type !== CHILD_MESSAGES.attempts) return;
    const { id, destinationId, query } = message as AttemptsRequest;
    const answer = (fields: Omit<AttemptsAnswer, 'type' | 'id'>) =>
      process.send?.({ type: CHILD_MESSAGES.attemptsAnswer, id, ...fields } satisfies AttemptsAnswer);
    source.find(destinationId, query).then(
      (found) => answer({ found }),
      (err: unknown) => answer({ error: errorMessage(err) }),
    );
  };
  process.on('message', onMessage);
  return () => process.off('message', onMessage);
}

/** The registry whose metrics this child reports to the primary (a start-up tried again replaces it). */
let reportedRegistry: Registry | undefined;

/** Answers the primary's requests for this child's metrics with `metrics` (one listener per process). */
function answerMetricsSnapshots(metrics: Registry): void {
  const listening = reportedRegistry !== undefined;
  reportedRegistry = metrics;
  if (listening) return;
  process.on('message', (message: Partial<MetricsSnapshotMessage> | undefined) => {
    if (message?.type !== CHILD_MESSAGES.metricsSnapshot || message.metrics !== undefined) return;
    const { id } = message as MetricsSnapshotMessage;
    reportedRegistry!.getMetricsAsJSON().then(
      (snapshot) =>
        process.send?.({
          type: CHILD_MESSAGES.metricsSnapshot,
          id,
          metrics: snapshot as MetricsSnapshotMessage['metrics'],
        } satisfies MetricsSnapshotMessage),
      () => undefined, // unanswered: the primary counts this child's previous snapshot
    );
  });
}

/** Sets how each metric of `metrics` combines across children (run once its metrics exist). */
export function setMetricAggregators(metrics: Registry): void {
  for (const [name, aggregator] of Object.entries(METRIC_AGGREGATORS)) {
    const metric = metrics.getSingleMetric(name) as { aggregator?: string } | undefined;
    if (metric) metric.aggregator = aggregator;
  }
}

/** Tells the primary this child has started and which ports it serves. */
export function announceStarted(ports: { httpPort: number; adminPort: number | undefined }): void {
  process.send?.({ type: CHILD_MESSAGES.started, ...ports });
}

function askPrimary(request: ChildRequest): Promise<PrimaryReply> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      process.off('message', onMessage);
      resolve({ id: request.id, error: 'the primary did not answer' });
    }, ASK_TIMEOUT_MS);
    const onMessage = (message: unknown) => {
      const reply = message as Partial<PrimaryReply>;
      if (reply?.id !== request.id) return;
      clearTimeout(timer);
      process.off('message', onMessage);
      resolve(reply as PrimaryReply);
    };
    process.on('message', onMessage);
    process.send?.(request);
  });
}
