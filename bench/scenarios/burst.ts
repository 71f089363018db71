import { runId, startBenchApp } from '../lib/app';
import { histogramDelta, histogramQuantile, histogramSnapshot } from '../lib/app-metrics';
import { BATCH_SIZE } from '../lib/pipeline';
import { check, type Scenario } from '../lib/scenario';
import { distribution } from '../lib/stats';

/** Hundreds of keep-alive clients, 1,000 batch requests in flight at once (analytics-go's maximum). */
const CLIENTS = 250;
const IN_FLIGHT_PER_CLIENT = 4;
/** analytics-go's http.Client gives up on a request after this long ("awaiting headers"). */
const CLIENT_TIMEOUT_MS = 10_000;
/** No 503 is retried after this long into the burst (the harness call itself may take 120 s). */
const DEADLINE_MS = 80_000;
const TARGET_P99_MS = 1_000;

/**
 * Issue 16, ingest under a burst as the client sees it: 1,000 concurrent `POST /v1/batch` of 100
 * events from 250 keep-alive clients (connections opened first), into Hookline with every role
 * (as `npm start`). Each 503 is retried after its Retry-After, as the Segment clients do. The
 * figure is the client's send→answer time of every HTTP request (503s included): a refusal is a
 * quick answer, a hanging request is not. Beside it, Hookline's own
 * hookline_ingest_request_duration_seconds over the same burst.
 */
export const burstScenario: Scenario = {
  name: 'burst',
  title: 'Ingest under a burst: 1,000 concurrent batch requests, latency as the client sees it — issue 16',
  async run(ctx) {
    const app = await startBenchApp(ctx, 'burst');
    try {
      const source = await app.source('bench burst');
      const metric = 'hookline_ingest_request_duration_seconds';
      const registry = app.app.parts.metrics;
      // Warm-up: a small burst (JIT, producer connections), not measured.
      await ctx.harness.call('sendBurst', {
        url: app.baseUrl,
        writeKey: source.writeKey,
        runId: runId('bwarm'),
        clients: 20,
        inFlight: 1,
        batchSize: BATCH_SIZE,
        requestTimeoutMs: CLIENT_TIMEOUT_MS,
        deadlineMs: DEADLINE_MS,
        warm: false,
      });
      const before = await histogramSnapshot(registry, metric);
      const burst = await ctx.harness.call('sendBurst', {
        url: app.baseUrl,
        writeKey: source.writeKey,
        runId: runId('burst'),
        clients: CLIENTS,
        inFlight: IN_FLIGHT_PER_CLIENT,
        batchSize: BATCH_SIZE,
        requestTimeoutMs: CLIENT_TIMEOUT_MS,
        deadlineMs: DEADLINE_MS,
        warm: true,
      });
      const own = histogramDelta(await histogramSnapshot(registry, metric), before);
      const all = distribution(burst.latenciesMs);
      const accepted = distribution(burst.acceptedLatenciesMs);
      const refused = burst.statuses['503'] ?? 0;
      const { config } = app.app.parts;
      ctx.log(
        `burst: p99 ${Math.round(all.p99)} ms over ${all.count} answers, ${refused} × 503, ${burst.timeouts} timeouts, ` +
          `${burst.accepted}/${burst.batches} batches accepted in ${Math.round(burst.elapsedMs)} ms`,
      );
      return {
        figures: [
          {
            label: 'client p99, every answer',
            value: all.p99,
            unit: 'ms',
            detail: `p50 ${Math.round(all.p50)}, max ${Math.round(all.max)}, ${all.count} answers`,
          },
          {
            label: 'client p99, 200 answers',
            value: accepted.p99,
            unit: 'ms',
            detail: `p50 ${Math.round(accepted.p50)}, max ${Math.round(accepted.max)}`,
          },
          { label: '503 answers (retried after Retry-After)', value: refused, unit: 'requests' },
          {
            label: 'client timeouts',
            value: burst.timeouts,
            unit: 'requests',
            detail: `${CLIENT_TIMEOUT_MS} ms`,
          },
          { label: 'other client errors', value: burst.errors, unit: 'requests' },
          { label: 'batches accepted', value: burst.accepted, unit: `of ${burst.batches}` },
          {
            label: 'burst drained',
            value: burst.elapsedMs,
            unit: 'ms',
            detail: `${burst.batches * BATCH_SIZE} events until every batch had its 200`,
          },
          {
            label: 'Hookline p99 (its own metric)',
            value: histogramQuantile(own, 0.99).estimate * 1_000,
            unit: 'ms',
            detail: `${metric}, ${own.count} requests`,
          },
          { label: 'connections opened (warm-up), slowest', value: burst.warmMaxMs ?? NaN, unit: 'ms' },
        ],
        checks: [
          check('client p99 (every answer), 1,000 concurrent batches', all.p99, 'ms', 'max', TARGET_P99_MS),
          check('client timeouts in the burst', burst.timeouts, 'requests', 'max', 0),
        ],
        notes: [
          `${CLIENTS} clients × ${IN_FLIGHT_PER_CLIENT} requests in flight, ${BATCH_SIZE} events each; Hookline with ` +
            `HOOKLINE_INGEST_CONCURRENCY=${config.ingest.concurrency}, HOOKLINE_INGEST_QUEUE=${config.ingest.queue}, ` +
            `HOOKLINE_INGEST_QUEUE_TIMEOUT=${config.ingest.queueTimeoutMs}ms; statuses ${JSON.stringify(burst.statuses)}` +
            (burst.firstError ? `; first error: ${burst.firstError}` : ''),
        ],
      };
    } finally {
      await app.stop();
    }
  },
};
