import { BENCH_PARTITIONS, startBenchApp } from '../lib/app';
import { formatStages, sampleStages } from '../lib/app-metrics';
import {
  BATCH_SIZE,
  CLIENTS,
  deliverAndWait,
  JOIN_WARM_UP_EVENTS,
  warmUpToSteadyState,
} from '../lib/pipeline';
import { formatSummary, startProfiler } from '../lib/profile';
import { CEILING_CONNECTIONS, measureCompiledCeiling } from '../lib/compiled-ceiling';
import { measureRawCeiling, webhookBody } from '../lib/raw-ceiling';
import { benchKafka, rawProducer } from '../lib/raw-kafka';
import { check, scaled, type Scenario } from '../lib/scenario';
import { perSecond } from '../lib/stats';

const EVENTS = 10_000;
const TARGET_RATIO = 0.6;
/** Issue 16: e2e against the receiver's HTTP ceiling as a compiled load client measures it. */
const COMPILED_TARGET_RATIO = 0.3;
/** Issue 16: Hookline's CPU per delivered event ≤ 2× the raw path's (produce + consume + POST). */
const CPU_TARGET_RATIO = 2;
const DELIVERY_TIMEOUT_MS = 120_000;

/** CPU ms spent on `count` items → µs per item. */
const perEvent = (cpuMs: number, count: number) => (cpuMs * 1_000) / Math.max(1, count);

/**
 * Issue 5, throughput: tracking API → Kafka → router → worker → a keep-alive receiver, all of
 * Hookline's roles in this process, against the raw ceiling measured in the same run: the lower
 * of (a) a raw kafkajs produce-then-consume of the same records on a topic with the same
 * partitions, and (b) raw keep-alive POSTs of the same payload to the same receiver, with the
 * worker's per-destination concurrency.
 */
export const e2eScenario: Scenario = {
  name: 'e2e',
  title: 'End to end: tracking API → webhook receiver vs raw ceiling — issue 5',
  async run(ctx) {
    const events = scaled(ctx, EVENTS);
    const app = await startBenchApp(ctx, 'e2e');
    const kafka = benchKafka(ctx, 'hookline-bench-raw');
    const producer = await rawProducer(kafka);
    try {
      const { config, events: codec } = app.app.parts;
      const {
        ids: [receiverId],
        urls: [url],
      } = await ctx.harness.call('startReceivers', { count: 1 });
      const source = await app.source('bench e2e');
      await app.destination(source.id, url!, 'bench receiver');
      const receiverIds = [receiverId!];
      ctx.log(`e2e: warming up the pipeline (${JOIN_WARM_UP_EVENTS} events, then ${events})`);
      await warmUpToSteadyState(ctx, app, {
        writeKey: source.writeKey,
        receiverIds,
        events,
        timeoutMs: DELIVERY_TIMEOUT_MS,
      });

      // (a) raw Kafka produce then consume; (b) raw HTTP: the webhook body Hookline sends, with the
      // worker's concurrency per destination.
      const concurrency = config.delivery.destinationConcurrency;
      const { produced, consumed, posted, kafkaCeiling, httpCeiling, ceiling } = await measureRawCeiling({
        kafka,
        producer,
        codec,
        prefix: app.prefix,
        sourceId: source.id,
        url: url!,
        events,
        concurrency,
      });
      ctx.log(
        `e2e: raw Kafka produce+consume ${Math.round(kafkaCeiling)}/s, raw POST ${Math.round(httpCeiling)}/s`,
      );
      // (c) the same body to the same receiver from a compiled client with many connections.
      const compiled = await measureCompiledCeiling({
        url: url!,
        body: webhookBody(source.id),
        log: ctx.log,
      });
      if (compiled.ok)
        ctx.log(`e2e: compiled client ${Math.round(compiled.ceiling.requestsPerSecond)} POST/s`);

      const profiler = ctx.profile ? await startProfiler(ctx.resultsDir) : undefined;
      const sampler = await sampleStages(app.app.parts.metrics);
      const run = await deliverAndWait(ctx, app, {
        writeKey: source.writeKey,
        receiverIds,
        events,
        label: 'e2e',
        timeoutMs: DELIVERY_TIMEOUT_MS,
      });
      const notes = formatStages(await sampler.stop());
      if (profiler)
        notes.push(...formatSummary('Hookline, all roles (the measured run)', await profiler.stop('e2e')));
      if (!run.complete)
        notes.unshift(
          `INCOMPLETE: ${run.delivered} of ${events} delivered within ${DELIVERY_TIMEOUT_MS / 1_000} s`,
        );
      const delivered = perSecond(run.delivered, run.elapsedMs);
      const hooklineCpu = perEvent(run.appCpuMs, run.delivered);
      const rawCpu =
        perEvent(produced.cpuMs, events) +
        perEvent(consumed.cpuMs, events) +
        perEvent(posted.cpuMs, posted.sent);
      ctx.log(`e2e: delivered ${Math.round(delivered)}/s`);
      if (!compiled.ok) notes.push(`(c) skipped: ${compiled.reason}`);
      notes.push(
        `per delivered event Hookline writes 2 records (event, attempt) and reads 1 (event): first attempts straight from the events (HOOKLINE_DIRECT_DELIVERY, the default); 3 and 2 through hookline.deliveries; the Kafka ceiling is 1 write + 1 read`,
      );
      return {
        figures: [
          {
            label: '(a) raw kafkajs produce',
            value: perSecond(produced.count, produced.elapsedMs),
            unit: 'events/s',
            detail: `${CLIENTS} × sendBatch(${BATCH_SIZE})`,
          },
          {
            label: '(a) raw kafkajs consume',
            value: perSecond(consumed.count, consumed.elapsedMs),
            unit: 'events/s',
            detail: `1 group, ${BENCH_PARTITIONS} partitions`,
          },
          {
            label: '(a) produce then consume',
            value: kafkaCeiling,
            unit: 'events/s',
            detail: 'N ÷ (produce time + consume time)',
          },
          {
            label: '(b) raw keep-alive POST',
            value: httpCeiling,
            unit: 'POST/s',
            detail: `node:http, ${concurrency} sockets (the worker's per-destination concurrency)`,
          },
          { label: 'raw ceiling = min(a, b)', value: ceiling, unit: 'events/s' },
          ...(compiled.ok
            ? [
                {
                  label: '(c) compiled client POST (second baseline)',
                  value: compiled.ceiling.requestsPerSecond,
                  unit: 'POST/s',
                  detail: `bench/ceiling (${compiled.ceiling.goVersion ?? 'Go'}), ${CEILING_CONNECTIONS} keep-alive connections, ${Math.round(compiled.ceiling.elapsedMs / 1_000)} s`,
                },
              ]
            : []),
          {
            label: 'Hookline delivered',
            value: delivered,
            unit: 'events/s',
            detail: `${run.delivered} events, first tracking call → last delivery`,
          },
          {
            label: 'Hookline accepted (during the run)',
            value: perSecond(run.load.ok * BATCH_SIZE, run.load.elapsedMs),
            unit: 'events/s',
          },
          {
            label: 'Hookline CPU (all roles)',
            value: hooklineCpu,
            unit: 'µs/event',
            detail: 'this process, first call → last delivery',
          },
          {
            label: 'Hookline event-loop utilisation',
            value: run.appElu,
            unit: '',
            detail: 'near 1: CPU-bound',
          },
          {
            label: 'raw CPU: produce + consume + POST',
            value: rawCpu,
            unit: 'µs/event',
            detail: `${perEvent(produced.cpuMs, events).toFixed(0)} + ${perEvent(consumed.cpuMs, events).toFixed(0)} + ${perEvent(posted.cpuMs, posted.sent).toFixed(0)}`,
          },
        ],
        checks: [
          check('delivered/s ÷ raw ceiling', delivered / ceiling, '×', 'min', TARGET_RATIO),
          check(
            'CPU per event ÷ raw produce + consume + POST',
            hooklineCpu / rawCpu,
            '×',
            'max',
            CPU_TARGET_RATIO,
          ),
          ...(compiled.ok
            ? [
                check(
                  'delivered/s ÷ compiled-client HTTP ceiling',
                  delivered / compiled.ceiling.requestsPerSecond,
                  '×',
                  'min',
                  COMPILED_TARGET_RATIO,
                ),
              ]
            : []),
        ],
        notes,
      };
    } finally {
      await producer.disconnect();
      await app.stop();
    }
  },
};
