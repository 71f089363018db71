import { performance } from 'node:perf_hooks';
import { BENCH_PARTITIONS, runId, startBenchApp } from '../lib/app';
import { encodeEvents } from '../lib/events';
import { warmUp } from '../lib/pipeline';
import { benchKafka, produceConsumeLatency, rawProducer } from '../lib/raw-kafka';
import { check, type Scenario } from '../lib/scenario';
import { cpuMsSince, distribution, perSecond } from '../lib/stats';
import { createReadyTopic } from '../lib/topics';
import { pollUntil } from '../lib/wait';
import { watchPauses } from '../lib/pauses';

const EVENTS_PER_SECOND = 1_000;
/** Events per POST /v1/batch: a call every 10 ms. */
const BATCH_SIZE = 10;
const WARM_UP_MS = 3_000;
const MEASURE_MS = 12_000;
const TARGET_P99_MS = 50;
/** After the load, how long stragglers may still arrive. */
const DRAIN_MS = 10_000;

/**
 * Issue 5, latency: a steady 1,000 events/s offered to the tracking API (10-event batches every
 * 10 ms, open loop), each event carrying its send time; the receiver takes arrival − send time.
 * Baseline: a raw kafkajs produce → consume at the same rate and batch size, on a topic with
 * the same partitions (one Kafka hop; Hookline makes two, plus HTTP in and out).
 */
export const latencyScenario: Scenario = {
  name: 'latency',
  title: 'Ingest → delivery latency at 1,000 events/s — issue 5',
  async run(ctx) {
    const app = await startBenchApp(ctx, 'latency');
    const kafka = benchKafka(ctx, 'hookline-bench-raw');
    const producer = await rawProducer(kafka);
    try {
      const { ids, urls } = await ctx.harness.call('startReceivers', { count: 1, recordLatency: true });
      const source = await app.source('bench latency');
      await app.destination(source.id, urls[0]!, 'bench receiver');
      await warmUp(ctx, app, { writeKey: source.writeKey, receiverIds: ids, events: 500 });

      // The baseline first, while Hookline is idle: after its run Hookline may still be draining.
      ctx.log(`latency: raw produce → consume at ${EVENTS_PER_SECOND} events/s`);
      const rawTopic = `${app.prefix}.raw-latency`;
      await createReadyTopic(kafka, rawTopic, BENCH_PARTITIONS);
      const [record] = encodeEvents(app.app.parts.events, source.id, 'raw', 1);
      const raw = distribution(
        await produceConsumeLatency({
          kafka,
          producer,
          topic: rawTopic,
          groupId: `${app.prefix}.raw-latency`,
          record: record!,
          eventsPerSecond: EVENTS_PER_SECOND,
          batchSize: BATCH_SIZE,
          warmUpMs: WARM_UP_MS,
          durationMs: MEASURE_MS,
        }),
      );

      const paced = async (durationMs: number, label: string) => {
        const run = runId(label);
        await ctx.harness.call('resetReceivers', { ids, runId: run });
        const load = await ctx.harness.call('sendPaced', {
          url: app.baseUrl,
          writeKey: source.writeKey,
          runId: run,
          eventsPerSecond: EVENTS_PER_SECOND,
          batchSize: BATCH_SIZE,
          durationMs,
        });
        if (load.failed > 0) ctx.log(`warning: ${load.failed} tracking calls failed: ${load.firstFailure}`);
        return load;
      };
      ctx.log(
        `latency: ${WARM_UP_MS / 1_000} s warm-up, then ${MEASURE_MS / 1_000} s at ${EVENTS_PER_SECOND} events/s`,
      );
      await paced(WARM_UP_MS, 'lwarm');
      const elu = performance.eventLoopUtilization();
      const cpu = process.cpuUsage();
      const watch = watchPauses();
      const load = await paced(MEASURE_MS, 'lat');
      const pauses = watch.stop();
      const appElu = performance.eventLoopUtilization(elu).utilization;
      const appCpuMs = cpuMsSince(cpu);
      const expected = load.ok * BATCH_SIZE;
      const arrived = await pollUntil(
        async () => {
          const [stats] = await ctx.harness.call('receiverStats', { ids });
          return stats!.count >= expected ? stats : undefined;
        },
        { timeoutMs: DRAIN_MS, intervalMs: 100 },
      );
      const [stats] = await ctx.harness.call('receiverStats', { ids });
      const measured = await ctx.harness.call('latencies', { ids });
      // An event not delivered by the end of the drain window counts as infinitely late.
      const missing = Math.max(0, expected - measured.length);
      const hookline = distribution([...measured, ...Array<number>(missing).fill(Number.POSITIVE_INFINITY)]);
      const deliveredRate = perSecond(stats!.count, (stats!.lastAt ?? 0) - (stats!.firstAt ?? 0));

      const notes = [
        `offered ${load.sent} calls × ${BATCH_SIZE} events in ${Math.round(load.elapsedMs)} ms; ${load.skipped} ticks skipped; load generator lag p99 ${load.scheduleLagP99Ms.toFixed(1)} ms`,
      ];
      if (!arrived) {
        notes.unshift(
          `NOT KEEPING UP: ${measured.length} of ${expected} events arrived by ${DRAIN_MS / 1_000} s after the load (Hookline delivered ${Math.round(deliveredRate)}/s of the ${EVENTS_PER_SECOND}/s offered); the rest count as ∞`,
        );
      }
      return {
        figures: [
          { label: 'Hookline p50', value: hookline.p50, unit: 'ms', detail: `${hookline.count} events` },
          { label: 'Hookline p90', value: hookline.p90, unit: 'ms' },
          { label: 'Hookline p99', value: hookline.p99, unit: 'ms' },
          { label: 'Hookline max', value: hookline.max, unit: 'ms' },
          {
            label: 'Hookline delivered (first → last arrival)',
            value: deliveredRate,
            unit: 'events/s',
            detail: `${EVENTS_PER_SECOND}/s offered`,
          },
          {
            label: 'Hookline event-loop utilisation',
            value: appElu,
            unit: '',
            detail: 'during the measured load; near 1, waits are queueing',
          },
          {
            label: 'Hookline event-loop delay, max',
            value: pauses.loopDelayMaxMs,
            unit: 'ms',
            detail: `longest GC pause ${pauses.gcMaxMs.toFixed(1)} ms, ${Math.round(pauses.gcTotalMs)} ms of GC in all; a spike beyond these came from outside the process`,
          },
          {
            label: 'Hookline CPU',
            value: (appCpuMs * 1_000) / Math.max(1, load.ok * BATCH_SIZE),
            unit: 'µs/event',
            detail: 'during the measured load',
          },
          { label: 'tracking call → 200 (Kafka ack) p50', value: load.responseP50Ms, unit: 'ms' },
          { label: 'tracking call → 200 (Kafka ack) p99', value: load.responseP99Ms, unit: 'ms' },
          {
            label: 'raw produce → consume p50',
            value: raw.p50,
            unit: 'ms',
            detail: `${raw.count} records, same rate and batches`,
          },
          { label: 'raw produce → consume p99', value: raw.p99, unit: 'ms' },
          {
            label: 'Hookline p99 ÷ raw p99',
            value: hookline.p99 / raw.p99,
            unit: '×',
            detail: 'no target; two Kafka hops + HTTP vs one hop',
          },
        ],
        checks: [check('p99 ingest → delivery', hookline.p99, 'ms', 'max', TARGET_P99_MS)],
        notes,
      };
    } finally {
      await producer.disconnect();
      await app.stop();
    }
  },
};
