import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { percentile } from './stats';

/**
 * HTTP load with plain node:http and a keep-alive Agent: the least overhead Node offers, so the
 * same code serves as a load generator (tracking calls) and as a baseline (raw webhook POSTs).
 */

export interface PostOutcome {
  status: number;
  /** The answer's `Retry-After`, in seconds, when it has one. */
  retryAfterS?: number;
  /** 0 when the request failed before an answer; then `error` says why. */
  error?: string;
}

export interface LoadResult {
  sent: number;
  ok: number;
  failed: number;
  /** Answers by status ("200", "503", "error"). */
  statuses: Record<string, number>;
  firstFailure?: string;
  /** performance.now() of this process when the first request went out. */
  startedAt: number;
  elapsedMs: number;
  /** CPU time (user + system) this process spent meanwhile. */
  cpuMs: number;
}

export interface ClosedLoopOptions {
  url: string;
  /** Requests in flight at once, each on its own keep-alive socket. */
  concurrency: number;
  /** Requests in all. */
  requests: number;
  /** Body of the i-th request, built when it is sent. */
  body: (i: number) => string;
  headers?: Record<string, string>;
  /** No request starts after this many ms; the result then has sent < requests. */
  timeoutMs: number;
}

/** `concurrency` clients, each sending its next request as soon as the previous one answered. */
export async function postClosedLoop(options: ClosedLoopOptions): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
  const tally = new Tally();
  const startedAt = performance.now();
  const cpu = process.cpuUsage();
  let next = 0;
  const client = async () => {
    while (next < options.requests && performance.now() - startedAt < options.timeoutMs) {
      const i = next++;
      tally.add(await post(agent, options.url, options.body(i), options.headers));
    }
  };
  try {
    await Promise.all(Array.from({ length: options.concurrency }, client));
  } finally {
    agent.destroy();
  }
  return tally.result(startedAt, cpu);
}

export interface PacedOptions {
  url: string;
  /** Requests per second, sent on a fixed schedule whether or not earlier ones answered. */
  requestsPerSecond: number;
  durationMs: number;
  /** Body of the i-th request, built at its send time. */
  body: (i: number) => string;
  headers?: Record<string, string>;
  /** Requests in flight beyond which a tick is skipped (and counted) rather than piled up. */
  maxInFlight: number;
}

export interface PacedResult extends LoadResult {
  /** Ticks not sent because maxInFlight requests were outstanding. */
  skipped: number;
  /** How late ticks were sent relative to their schedule: p99, ms (a busy load generator shows here). */
  scheduleLagP99Ms: number;
  /** Request → response time, ms: for the tracking API, the wait for Kafka's acknowledgement. */
  responseP50Ms: number;
  responseP99Ms: number;
}

/** Open-loop load: one request every 1000/rate ms on an absolute schedule (no drift, no waiting). */
export async function postPaced(options: PacedOptions): Promise<PacedResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.maxInFlight });
  const tally = new Tally();
  const intervalMs = 1_000 / options.requestsPerSecond;
  const total = Math.floor(options.durationMs / intervalMs);
  const lags: number[] = [];
  const responses: number[] = [];
  const pending = new Set<Promise<void>>();
  let skipped = 0;
  const startedAt = performance.now();
  const cpu = process.cpuUsage();
  try {
    for (let i = 0; i < total; i++) {
      const dueAt = startedAt + i * intervalMs;
      const waitMs = dueAt - performance.now();
      if (waitMs > 0) await sleep(waitMs);
      lags.push(performance.now() - dueAt);
      if (pending.size >= options.maxInFlight) {
        skipped++;
        continue;
      }
      const sentAt = performance.now();
      const request = post(agent, options.url, options.body(i), options.headers).then((outcome) => {
        responses.push(performance.now() - sentAt);
        tally.add(outcome);
        pending.delete(request);
      });
      pending.add(request);
    }
    await Promise.all(pending);
  } finally {
    agent.destroy();
  }
  return {
    ...tally.result(startedAt, cpu),
    skipped,
    scheduleLagP99Ms: percentile(lags, 99),
    responseP50Ms: percentile(responses, 50),
    responseP99Ms: percentile(responses, 99),
  };
}

/** Requests that have not answered after this long count as failed (bounds every load loop). */
const REQUEST_TIMEOUT_MS = 30_000;

export function post(
  agent: http.Agent,
  url: string,
  body: string,
  headers: Record<string, string> = {},
  timeoutMs = REQUEST_TIMEOUT_MS,
): Promise<PostOutcome> {
  return new Promise((resolve) => {
    const payload = Buffer.from(body, 'utf8');
    const req = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': payload.length, ...headers },
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const retryAfterS = Number(res.headers['retry-after']);
        res.resume();
        res.once('end', () =>
          resolve(Number.isFinite(retryAfterS) && retryAfterS >= 0 ? { status, retryAfterS } : { status }),
        );
        res.once('error', (err) => resolve({ status: 0, error: err.message }));
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.once('error', (err) => resolve({ status: 0, error: err.message }));
    req.end(payload);
  });
}

class Tally {
  private sent = 0;
  private ok = 0;
  private readonly statuses: Record<string, number> = {};
  private firstFailure: string | undefined;

  add(outcome: PostOutcome): void {
    this.sent++;
    const key = outcome.status === 0 ? 'error' : String(outcome.status);
    this.statuses[key] = (this.statuses[key] ?? 0) + 1;
    if (outcome.status >= 200 && outcome.status < 300) this.ok++;
    else this.firstFailure ??= outcome.error ?? `HTTP ${outcome.status}`;
  }

  result(startedAt: number, cpu: NodeJS.CpuUsage): LoadResult {
    const used = process.cpuUsage(cpu);
    return {
      sent: this.sent,
      ok: this.ok,
      failed: this.sent - this.ok,
      statuses: this.statuses,
      ...(this.firstFailure !== undefined && { firstFailure: this.firstFailure }),
      startedAt,
      elapsedMs: performance.now() - startedAt,
      cpuMs: (used.user + used.system) / 1_000,
    };
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
