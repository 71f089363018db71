import { performance } from 'node:perf_hooks';
import { runId, startBenchApp, type BenchApp } from '../lib/app';
import {
  formatStages,
  histogramDelta,
  histogramQuantile,
  histogramSnapshot,
  sampleStages,
} from '../lib/app-metrics';
import { FlakyReceiver } from '../lib/flaky-receiver';
import { warmUp } from '../lib/pipeline';
import { check, type Scenario } from '../lib/scenario';
import { cpuMsSince, distribution, perSecond } from '../lib/stats';
import { pollUntil } from '../lib/wait';

/** The retry schedule scaled down from 10s, 1m, ...: every retry here waits in the first tier. */
const SCHEDULE = '1s,2s';
const CUTOFF = '30s';
const DELAY_MS = 1_000;
const EVENTS_PER_SECOND = 500;
/** Events per POST /v1/batch: a call every 20 ms. */
const BATCH_SIZE = 10;
const LOAD_MS = 10_000;
/** After the load, how long the last retries may take to arrive. */
const DRAIN_MS = 20_000;
const TARGET_P99_MS = 1_000;
/** Hookline's due times are whole ms of Date.now(): a retry may start up to 1 ms before the exact due instant. */
const CLOCK_RESOLUTION_MS = 1;
const LATENESS_METRIC = 'hookline_retry_lateness_seconds';

const LANE_SAMPLE_MS = 100;

interface LaneSummary {
  /** Share of samples with every slot of the lane busy. */
  saturated: number;
  meanActive: number;
  meanQueued: number;
  maxQueued: number;
}

/**
 * Samples the worker's dispatcher lanes (requests in flight and tasks waiting, per destination)
 * until stopped: a lane at its concurrency bound with a queue is where retries wait after they
 * are due and before they are sent.
 */
function sampleLanes(app: BenchApp, destinationIds: string[]): { stop(): LaneSummary[] } {
  const dispatcher = app.app.roles.worker?.dispatcher;
  const bound = app.app.parts.config.delivery.destinationConcurrency;
  const samples = destinationIds.map(() => [] as { active: number; queued: number }[]);
  const timer = setInterval(() => {
    if (dispatcher) destinationIds.forEach((id, i) => samples[i]!.push(dispatcher.load(id)));
  }, LANE_SAMPLE_MS);
  return {
    stop() {
      clearInterval(timer);
      return samples.map((s) => {
        const n = Math.max(1, s.length);
        return {
          saturated: s.filter((x) => x.active >= bound).length / n,
          meanActive: s.reduce((a, x) => a + x.active, 0) / n,
          meanQueued: s.reduce((a, x) => a + x.queued, 0) / n,
          maxQueued: s.reduce((a, x) => Math.max(a, x.queued), 0),
        };
      });
    },
  };
}

function formatLane(lane: LaneSummary): string {
  return `${Math.round(lane.saturated * 100)}% of the time at the bound, ${lane.meanActive.toFixed(1)} in flight and ${lane.meanQueued.toFixed(1)} waiting on average, ${lane.maxQueued} waiting at most`;
}

/**
 * Issue 6: how late retries start under load. One source, two destinations: a healthy receiver,
 * and one that answers 500 to the first request of each messageId and 200 to the next, so every
 * event is retried exactly once, through the 1 s delay topic. A steady 500 events/s for 10 s
 * (1,500 webhook requests/s). Lateness per retried event, at the receiver: retry arrival − (failed
 * first arrival + 1 s); and Hookline's own hookline_retry_lateness_seconds over the same run. The
 * baseline is the scheduled delay itself.
 */
export const retryLatenessScenario: Scenario = {
  name: 'retry-lateness',
  title: 'Retry lateness under load (1 s delay tier, 500 events/s) — issue 6',
  async run(ctx) {
    const loadMs = Math.max(2_000, Math.round(LOAD_MS * ctx.scale));
    const { harness } = ctx;
    const app = await startBenchApp(ctx, 'retry-lateness', {
      HOOKLINE_RETRY_SCHEDULE: SCHEDULE,
      HOOKLINE_RETRY_CUTOFF: CUTOFF,
      // Every failed attempt logs a warning (delivery.attempted): 5,000 lines written to stdout by
      // the process under test, in the middle of the measurement.
      HOOKLINE_LOG_LEVEL: 'error',
      // A receiver that fails every first attempt fails half of all requests: its circuit breaker
      // would open (rightly) and hold retries back for its cool-down. This scenario measures the
      // delay topics, so the breakers are off here (the isolation scenarios keep them on).
      HOOKLINE_CIRCUIT_BREAKER: 'false',
    });
    const flaky = await FlakyReceiver.start();
    const healthy = await harness.call('startReceivers', { count: 1, recordLatency: true });
    try {
      const { metrics } = app.app.parts;
      const source = await app.source('bench retry-lateness');
      const healthyId = await app.destination(source.id, healthy.urls[0]!, 'healthy');
      const flakyId = await app.destination(source.id, flaky.url, 'fails once per messageId');
      await warmUp(ctx, app, { writeKey: source.writeKey, receiverIds: healthy.ids, events: 500 });
      // The warm-up's events failed once at the flaky receiver: their retries prove the delay
      // consumer's group has joined.
      const warmed = await pollUntil(
        async () => {
          const s = await flaky.stats();
          return s.ignored > 0 && s.awaitingRetry === 0 ? s : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 100 },
      );
      if (!warmed)
        throw new Error(`the warm-up's retries never arrived: ${JSON.stringify(await flaky.stats())}`);

      const run = runId('rl');
      await flaky.reset(run);
      await harness.call('resetReceivers', { ids: healthy.ids, runId: run });
      ctx.log(
        `retry-lateness: ${EVENTS_PER_SECOND} events/s for ${loadMs / 1_000} s, each retried once after ${DELAY_MS} ms`,
      );
      const histogramBefore = await histogramSnapshot(metrics, LATENESS_METRIC);
      const sampler = await sampleStages(metrics);
      const lanes = sampleLanes(app, [healthyId, flakyId]);
      const elu = performance.eventLoopUtilization();
      const cpu = process.cpuUsage();
      const load = await harness.call('sendPaced', {
        url: app.baseUrl,
        writeKey: source.writeKey,
        runId: run,
        eventsPerSecond: EVENTS_PER_SECOND,
        batchSize: BATCH_SIZE,
        durationMs: loadMs,
      });
      if (load.failed > 0) ctx.log(`warning: ${load.failed} tracking calls failed: ${load.firstFailure}`);
      const expected = load.ok * BATCH_SIZE;
      const drained = await pollUntil(
        async () => {
          const { retried } = await flaky.stats();
          const [h] = await harness.call('receiverStats', { ids: healthy.ids });
          return retried >= expected && h!.count >= expected ? true : undefined;
        },
        { timeoutMs: DRAIN_MS, intervalMs: 100 },
      );
      const appElu = performance.eventLoopUtilization(elu).utilization;
      const appCpuMs = cpuMsSince(cpu);
      const timeline = await sampler.stop();
      const [healthyLane, flakyLane] = lanes.stop();
      const histogram = histogramDelta(await histogramSnapshot(metrics, LATENESS_METRIC), histogramBefore);
      const flakyStats = await flaky.stats();
      const [healthyStats] = await harness.call('receiverStats', { ids: healthy.ids });

      // A retry that had not arrived by the end of the drain counts as infinitely late.
      const measured = (await flaky.gaps()).map((gap) => gap - DELAY_MS);
      const missing = Math.max(0, expected - measured.length);
      const lateness = distribution([...measured, ...Array<number>(missing).fill(Number.POSITIVE_INFINITY)]);
      // At least a whole delay late: typically deferred (lane full) and sent through the delay topic again.
      const tierLate = measured.filter((l) => l >= DELAY_MS).length + missing;
      const earliest = measured.length === 0 ? Number.NaN : Math.min(...measured);
      const own = { p50: histogramQuantile(histogram, 0.5), p99: histogramQuantile(histogram, 0.99) };
      const healthyLatency = distribution(await harness.call('latencies', { ids: healthy.ids }));
      const first = timeline[0]!;
      const last = timeline[timeline.length - 1]!;

      const notes = [
        `offered ${load.sent} calls × ${BATCH_SIZE} events in ${Math.round(load.elapsedMs)} ms (${load.skipped} ticks skipped, load generator lag p99 ${load.scheduleLagP99Ms.toFixed(1)} ms); the flaky receiver failed ${flakyStats.failed} first attempts and got ${flakyStats.retried} retries, ${flakyStats.extra} requests beyond the second`,
        `Hookline during the run: ${last.retried - first.retried} retries scheduled, ${last.deferred - first.deferred} tasks deferred (lane full → first delay topic, unattempted), ${histogram.count} retries started (${LATENESS_METRIC} observations); its lateness is taken when a due task is handed to the dispatcher, the receiver's also covers the wait for a lane and the HTTP request`,
        `dispatcher lanes (sampled every ${LANE_SAMPLE_MS} ms over load + drain, ${app.app.parts.config.delivery.destinationConcurrency} requests in flight at most): failing destination ${formatLane(flakyLane!)}; healthy destination ${formatLane(healthyLane!)}`,
        ...formatStages(timeline),
      ];
      if (!drained) {
        notes.unshift(
          `NOT KEEPING UP: ${measured.length} of ${expected} retries and ${healthyStats!.count} of ${expected} healthy deliveries arrived by ${DRAIN_MS / 1_000} s after the load; missing retries count as ∞`,
        );
      }
      const ms = (seconds: number) => seconds * 1_000;
      return {
        figures: [
          {
            label: 'scheduled delay (the baseline)',
            value: DELAY_MS,
            unit: 'ms',
            detail: `tier 1 of ${SCHEDULE}`,
          },
          {
            label: 'lateness at the receiver p50',
            value: lateness.p50,
            unit: 'ms',
            detail: `retry arrival − (failed first arrival + ${DELAY_MS} ms), ${lateness.count} events`,
          },
          { label: 'lateness at the receiver p90', value: lateness.p90, unit: 'ms' },
          { label: 'lateness at the receiver p99', value: lateness.p99, unit: 'ms' },
          { label: 'lateness at the receiver max', value: lateness.max, unit: 'ms' },
          {
            label: 'lateness at the receiver min',
            value: earliest,
            unit: 'ms',
            detail: '< 0 would be a retry sent early',
          },
          {
            label: 'retries ≥ 1 delay late',
            value: (100 * tierLate) / Math.max(1, expected),
            unit: '%',
            detail: `${tierLate} of ${expected} (a deferral costs a whole delay), or missing`,
          },
          {
            label: 'p99 lateness ÷ scheduled delay',
            value: lateness.p99 / DELAY_MS,
            unit: '×',
            detail: 'a retry due after 1 s starts after 1 s × (1 + this)',
          },
          {
            label: 'Hookline metric p50',
            value: ms(own.p50.estimate),
            unit: 'ms',
            detail: `${LATENESS_METRIC}, interpolated in bucket ≤ ${ms(own.p50.bound)} ms`,
          },
          {
            label: 'Hookline metric p99',
            value: ms(own.p99.estimate),
            unit: 'ms',
            detail: `interpolated in bucket ≤ ${ms(own.p99.bound)} ms; ${histogram.count} observations`,
          },
          {
            label: 'Hookline metric mean',
            value: histogram.count > 0 ? ms(histogram.sum / histogram.count) : Number.NaN,
            unit: 'ms',
          },
          {
            label: 'healthy destination latency p50',
            value: healthyLatency.p50,
            unit: 'ms',
            detail: 'tracking call → arrival, same load, for comparison',
          },
          { label: 'healthy destination latency p99', value: healthyLatency.p99, unit: 'ms' },
          {
            label: 'webhook requests',
            value: perSecond(expected * 3, load.elapsedMs),
            unit: '/s',
            detail: `${EVENTS_PER_SECOND} events/s × (healthy + failing first attempt + retry)`,
          },
          {
            label: 'Hookline event-loop utilisation',
            value: appElu,
            unit: '',
            detail: 'load + drain; near 1, timers and fetches queue',
          },
          {
            label: 'Hookline CPU',
            value: (appCpuMs * 1_000) / Math.max(1, expected),
            unit: 'µs/event',
            detail: 'ingest, route, 3 webhook requests, 1 retry',
          },
        ],
        checks: [
          check('retry lateness p99 at the receiver', lateness.p99, 'ms', 'max', TARGET_P99_MS),
          check(
            'retry lateness p99, Hookline metric (bucket)',
            ms(own.p99.bound),
            'ms',
            'max',
            TARGET_P99_MS,
          ),
          check('earliest retry − due (nothing early)', earliest, 'ms', 'min', -CLOCK_RESOLUTION_MS),
        ],
        notes,
      };
    } finally {
      flaky.stop();
      await harness.call('closeReceiver', { id: healthy.ids[0]! });
      await app.stop();
    }
  },
};
