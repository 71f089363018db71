import type { BurstResult } from '../lib/burst-load';
import type { LoadResult, PacedResult } from '../lib/http-load';

/**
 * What the harness process does for the bench: it plays the outside world (tracking clients
 * and webhook receivers) in its own process, so the process under test (Hookline, or a raw
 * kafkajs/HTTP baseline) has an event loop to itself. Times are performance.now() of the
 * harness process; only durations computed from them leave it.
 */
export interface HarnessApi {
  /** Starts receivers on 127.0.0.1:0 (one origin each). `hang`: accept, read, never answer. */
  startReceivers(p: { count: number; hang?: boolean; recordLatency?: boolean }): {
    ids: number[];
    urls: string[];
  };
  /**
   * Zeroes counters and latencies; `target` arms `targetReachedAt` (when count reaches it);
   * with `runId`, only requests of that run's events count (earlier runs' stragglers do not).
   */
  resetReceivers(p: { ids: number[]; target?: number; runId?: string }): void;
  receiverStats(p: { ids: number[] }): ReceiverStats[];
  /** ms from `benchSentAt` (in the event's properties) to arrival, for every request since reset. */
  latencies(p: { ids: number[] }): number[];
  /** Stops listening and drops every connection (hanging ones too). */
  closeReceiver(p: { id: number }): void;
  /** `POST /v1/batch` closed loop: `batchSize` events a request, `concurrency` keep-alive clients. */
  sendBatches(p: BatchLoad): LoadResult;
  /** `POST /v1/batch` open loop at a fixed event rate, events carrying their send time. */
  sendPaced(p: PacedLoad): PacedResult;
  /** A burst of `clients × inFlight` batch requests at once, 503s retried after Retry-After. */
  sendBurst(p: BurstLoad): BurstResult;
}

export interface BurstLoad {
  url: string;
  writeKey: string;
  runId: string;
  clients: number;
  inFlight: number;
  batchSize: number;
  requestTimeoutMs: number;
  deadlineMs: number;
  /** Open every connection before the burst (kept-alive clients). */
  warm: boolean;
}

export interface ReceiverStats {
  id: number;
  count: number;
  /** Requests of other runs, not counted. */
  ignored: number;
  /** Arrival of the first and last request since reset, or null. */
  firstAt: number | null;
  lastAt: number | null;
  /** When count reached the armed target, or null. */
  targetReachedAt: number | null;
}

export interface BatchLoad {
  url: string;
  writeKey: string;
  runId: string;
  events: number;
  batchSize: number;
  concurrency: number;
  timeoutMs: number;
}

export interface PacedLoad {
  url: string;
  writeKey: string;
  runId: string;
  eventsPerSecond: number;
  batchSize: number;
  durationMs: number;
}

export type HarnessMethod = keyof HarnessApi;
export type HarnessParams<M extends HarnessMethod> = Parameters<HarnessApi[M]>[0];
export type HarnessResult<M extends HarnessMethod> = ReturnType<HarnessApi[M]>;

export type HarnessRequest = { id: number; method: HarnessMethod; params: unknown };
export type HarnessResponse = { id: number; result?: unknown; error?: string };
