import { performance } from 'node:perf_hooks';
import type { LoadResult } from './http-load';
import type { BenchApp } from './app';
import { runId as newRunId } from './app';
import type { BenchContext } from './scenario';
import { cpuMsSince } from './stats';
import { pollUntil } from './wait';

/** How the bench sends tracking calls: Segment's usual batch, several keep-alive clients. */
export const BATCH_SIZE = 100;
export const CLIENTS = 8;

export interface DeliveryRun {
  runId: string;
  events: number;
  load: LoadResult;
  /** True when every receiver got all `events` before the deadline. */
  complete: boolean;
  /** Fewest events any of the receivers got. */
  delivered: number;
  /** From the first tracking call to the moment the last receiver had all its events (or the deadline). */
  elapsedMs: number;
  /** CPU the bench process (Hookline, when it runs in-process) spent meanwhile. */
  appCpuMs: number;
  /** Event-loop utilisation of the bench process meanwhile (0–1): near 1, it is CPU-bound. */
  appElu: number;
}

/**
 * Sends `events` tracking events through POST /v1/batch and waits until each of `receiverIds`
 * got all of them (or `timeoutMs` passed). Every time is taken in the harness process, so the
 * span runs from its first request to the arrival of the last delivery.
 */
export async function deliverAndWait(
  ctx: BenchContext,
  app: Pick<BenchApp, 'baseUrl'>,
  options: { writeKey: string; receiverIds: number[]; events: number; label: string; timeoutMs: number },
): Promise<DeliveryRun> {
  const { harness } = ctx;
  const { receiverIds, events } = options;
  const runId = newRunId(options.label);
  await harness.call('resetReceivers', { ids: receiverIds, target: events, runId });
  const cpu = process.cpuUsage();
  const elu = performance.eventLoopUtilization();
  const load = await harness.call('sendBatches', {
    url: app.baseUrl,
    writeKey: options.writeKey,
    runId,
    events,
    batchSize: BATCH_SIZE,
    concurrency: CLIENTS,
    timeoutMs: options.timeoutMs,
  });
  if (load.failed > 0)
    ctx.log(
      `warning: ${load.failed} tracking calls failed (${JSON.stringify(load.statuses)}): ${load.firstFailure}`,
    );
  const remainingMs = Math.max(1_000, options.timeoutMs - load.elapsedMs);
  const done = await pollUntil(
    async () => {
      const stats = await harness.call('receiverStats', { ids: receiverIds });
      return stats.every((s) => s.targetReachedAt !== null) ? stats : undefined;
    },
    { timeoutMs: remainingMs, intervalMs: 50 },
  );
  const appCpuMs = cpuMsSince(cpu);
  const appElu = performance.eventLoopUtilization(elu).utilization;
  const stats = done ?? (await harness.call('receiverStats', { ids: receiverIds }));
  const endAt = done
    ? Math.max(...stats.map((s) => s.targetReachedAt!))
    : Math.max(...stats.map((s) => s.lastAt ?? load.startedAt));
  return {
    runId,
    events,
    load,
    complete: done !== undefined,
    delivered: Math.min(...stats.map((s) => s.count)),
    elapsedMs: endAt - load.startedAt,
    appCpuMs,
    appElu,
  };
}

/** The small warm-up run of `warmUpToSteadyState`. */
export const JOIN_WARM_UP_EVENTS = 1_000;

/**
 * `warmUp` (a small run that proves the groups joined), then one discarded run of the measured
 * size (`timeoutMs`: the scenario's own, as its measured run may take), so that the measured run finds the JIT, the heap and the connections in their steady
 * state. A 1,000-event warm-up alone left `e2e`'s measured run at 175–204 µs of CPU per event,
 * against 142–164 after a discarded run of its 10,000 events and 133–145 after 20,000 (27 Nov
 * 2026); the raw baselines get a discarded round of their own (raw-ceiling.ts).
 */
export async function warmUpToSteadyState(
  ctx: BenchContext,
  app: Pick<BenchApp, 'baseUrl'>,
  options: { writeKey: string; receiverIds: number[]; events: number; timeoutMs: number },
): Promise<void> {
  const { timeoutMs, ...rest } = options;
  await warmUp(ctx, app, { ...rest, events: JOIN_WARM_UP_EVENTS });
  const run = await deliverAndWait(ctx, app, { ...rest, label: 'steady', timeoutMs });
  if (!run.complete)
    ctx.log(
      `steady-state warm-up: ${run.delivered}/${run.events} delivered in ${timeoutMs / 1_000} s; measuring anyway`,
    );
}

/**
 * Runs a few small deliveries until one arrives complete: proves that the router and worker
 * groups have joined and found their offsets (a fresh group starts at the log end, so events
 * written before its first fetch would otherwise be skipped).
 */
export async function warmUp(
  ctx: BenchContext,
  app: Pick<BenchApp, 'baseUrl'>,
  options: { writeKey: string; receiverIds: number[]; events: number },
): Promise<void> {
  for (let attempt = 1; attempt <= 5; attempt++) {
    const run = await deliverAndWait(ctx, app, { ...options, label: 'warm', timeoutMs: 15_000 });
    if (run.complete) return;
    ctx.log(`warm-up ${attempt}: ${run.delivered}/${run.events} delivered; again`);
  }
  throw new Error('the pipeline does not deliver: warm-up never completed');
}
