import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { post, sleep } from './http-load';

/**
 * A burst as a Segment client makes one (analytics-go keeps up to 1,000 batch requests in
 * flight): `clients` keep-alive clients with `inFlight` requests each, every request on its own
 * connection, all sent at once. A 503 is retried after its `Retry-After` (1 s when absent), as
 * the Segment clients do, until the batch is accepted or `deadlineMs` passes. Every HTTP request's
 * time from send to answer is recorded: that is latency as the client sees it, 503s included.
 */
export interface BurstOptions {
  url: string;
  clients: number;
  inFlight: number;
  /** Body of the i-th batch (i < clients × inFlight); a retry resends the same body. */
  body: (i: number) => string;
  headers?: Record<string, string>;
  /** A request unanswered after this long is a client timeout (Go's "awaiting headers"). */
  requestTimeoutMs: number;
  /** No retry starts after this long. */
  deadlineMs: number;
  /**
   * Open every connection first (one GET of `warmPath` each), so the burst meets kept-alive
   * connections, as from clients that were already sending.
   */
  warmPath?: string;
}

export interface BurstResult {
  /** Batches in the burst, and those finally accepted (200). */
  batches: number;
  accepted: number;
  /** Every HTTP request's send→answer time, ms (timeouts and errors excluded). */
  latenciesMs: number[];
  /** The same for 200 answers only. */
  acceptedLatenciesMs: number[];
  /** Answers by status ("200", "503", ...), every attempt counted. */
  statuses: Record<string, number>;
  /** Requests with no answer within requestTimeoutMs. */
  timeouts: number;
  /** Other failures before an answer (reset, refused). */
  errors: number;
  firstError?: string;
  /** From the burst's start until the last batch was accepted (or given up), ms. */
  elapsedMs: number;
  /** Warm-up: the slowest connection's first answer, ms. */
  warmMaxMs?: number;
}

export async function postBurst(options: BurstOptions): Promise<BurstResult> {
  const agents = Array.from(
    { length: options.clients },
    () => new http.Agent({ keepAlive: true, maxSockets: options.inFlight }),
  );
  const slots = options.clients * options.inFlight;
  const agentOf = (i: number) => agents[i % options.clients]!;
  const result: BurstResult = {
    batches: slots,
    accepted: 0,
    latenciesMs: [],
    acceptedLatenciesMs: [],
    statuses: {},
    timeouts: 0,
    errors: 0,
    elapsedMs: 0,
  };
  try {
    if (options.warmPath) {
      const warmStarted = performance.now();
      const warm = await Promise.all(
        Array.from({ length: slots }, async (_, i) => {
          await getOnce(agentOf(i), new URL(options.warmPath!, options.url).href);
          return performance.now() - warmStarted;
        }),
      );
      result.warmMaxMs = Math.max(...warm);
    }
    const startedAt = performance.now();
    const sendBatch = async (i: number) => {
      const body = options.body(i);
      for (;;) {
        const sentAt = performance.now();
        const outcome = await post(agentOf(i), options.url, body, options.headers, options.requestTimeoutMs);
        const tookMs = performance.now() - sentAt;
        if (outcome.status === 0) {
          if (/no answer within/.test(outcome.error ?? '')) result.timeouts++;
          else result.errors++;
          result.firstError ??= outcome.error;
        } else {
          result.latenciesMs.push(tookMs);
          const key = String(outcome.status);
          result.statuses[key] = (result.statuses[key] ?? 0) + 1;
          if (outcome.status === 200) {
            result.acceptedLatenciesMs.push(tookMs);
            result.accepted++;
            return;
          }
          if (outcome.status !== 503) {
            result.firstError ??= `HTTP ${outcome.status}`;
            return;
          }
        }
        if (performance.now() - startedAt > options.deadlineMs) return;
        await sleep((outcome.retryAfterS ?? 1) * 1_000);
      }
    };
    await Promise.all(Array.from({ length: slots }, (_, i) => sendBatch(i)));
    result.elapsedMs = performance.now() - startedAt;
  } finally {
    for (const agent of agents) agent.destroy();
  }
  return result;
}

function getOnce(agent: http.Agent, url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent }, (res) => {
      res.resume();
      res.once('end', () => resolve());
    });
    req.setTimeout(30_000, () => req.destroy(new Error('warm-up: no answer within 30 s')));
    req.once('error', reject);
  });
}
