import { promises as fs } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { connectAvro } from '../../src/avro/connect';
import { eventKey } from '../../src/events/types';
import { createLogger } from '../../src/observability/logger';
import { EventCodec } from '../../src/records/event';
import { runId as newRunId } from '../lib/app';
import { normalizedEvent, type EncodedRecord } from '../lib/events';
import { benchKafka, produceClosedLoop, rawProducer } from '../lib/raw-kafka';
import { readMemory, summariseRss, type RssSample } from '../lib/rss';
import { gcSeconds, heapGauges, metricSum, metricsText } from '../lib/scraped-metrics';
import { check, scaled, type BenchContext, type Figure, type Scenario } from '../lib/scenario';
import { buildDist, startSpawnedApp, type SpawnedApp } from '../lib/spawned-app';
import { perSecond } from '../lib/stats';
import { sleep } from '../lib/wait';

const DEFAULT_EVENTS = 1_000_000;
const RSS_LIMIT_MB = 256;
/** "Flat": the fitted line rises by at most a tenth of the budget from 10% to 100% drained. */
const FLAT_GROWTH_MB = RSS_LIMIT_MB / 10;
/** The drain gives up below this average rate: deadline = events ÷ it + 60 s. */
const SLOWEST_DRAIN_PER_S = 400;
const FILL_CHUNK = 10_000;
const FILL_BATCH = 500;
const FILL_CONCURRENCY = 4;
const SAMPLE_INTERVAL_MS = 1_000;
const ROLES = 'router,worker';

/** `BENCH_BACKLOG_EVENTS` (default 1,000,000) × --scale, at least 10,000. */
export function backlogEvents(ctx: Pick<BenchContext, 'scale'>): number {
  const raw = process.env.BENCH_BACKLOG_EVENTS;
  const base = raw === undefined || raw === '' ? DEFAULT_EVENTS : Number(raw);
  if (!Number.isInteger(base) || base <= 0)
    throw new Error(`BENCH_BACKLOG_EVENTS must be a positive integer, got ${raw}`);
  return scaled(ctx, base, 10_000);
}

/** `BENCH_BACKLOG_NODE_FLAGS`: node flags the draining Hookline gets after start:prod's own (an experiment). */
function nodeFlags(): string[] {
  return (process.env.BENCH_BACKLOG_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
}

/** How long the scenario may take beyond the bench's usual limit: filling plus the slowest drain allowed. */
export function backlogBudgetMs(ctx: Pick<BenchContext, 'scale'>): number {
  const events = backlogEvents(ctx);
  return (events / SLOWEST_DRAIN_PER_S + events / 5_000 + 180) * 1_000;
}

/**
 * Issue 16: memory of the compiled Hookline (`npm run start:prod`, one process) while it drains a
 * backlog. Hookline runs once with the ingest role only (it creates its topics; a source and a
 * destination on a receiver of the harness are defined), stops; the bench writes N events onto
 * `<prefix>.events` with raw kafkajs (records normalised and encoded by Hookline's own code, as
 * ingest writes them); then Hookline restarts with HOOKLINE_ROLES=router,worker — after an outage
 * both stages have the backlog ahead of them — and RSS is read from /proc every second until the
 * receiver has all N.
 */
export const backlogScenario: Scenario = {
  name: 'backlog',
  title: 'Worker RSS while draining a backlog (compiled, router+worker) — issue 16',
  budgetMs: backlogBudgetMs,
  async run(ctx) {
    const events = backlogEvents(ctx);
    await buildDist(ctx, 'backlog');
    const {
      ids: [receiverId],
      urls: [url],
    } = await ctx.harness.call('startReceivers', { count: 1 });
    const setup = await startSpawnedApp(ctx, {
      scenario: 'backlog',
      workers: 1,
      built: true,
      env: { HOOKLINE_ROLES: 'ingest' },
    });
    const { prefix } = setup;
    let drainer: SpawnedApp | undefined;
    try {
      const source = await setup.source('bench backlog');
      await setup.destination(source.id, url!, 'bench receiver');
      await setup.stop({ keepTopics: true });

      const runId = newRunId('backlog');
      const fill = await fillBacklog(ctx, `${prefix}.events`, source.id, runId, events);
      ctx.log(`backlog: ${events} events written in ${(fill.elapsedMs / 1_000).toFixed(0)} s`);
      await ctx.harness.call('resetReceivers', { ids: [receiverId!], target: events, runId });

      drainer = await startSpawnedApp(ctx, {
        scenario: 'backlog',
        workers: 1,
        built: true,
        prefix,
        env: { HOOKLINE_ROLES: ROLES },
        nodeFlags: nodeFlags(),
      });
      const drain = await sampleDrain(ctx, drainer, receiverId!, events);
      await fs.mkdir(ctx.resultsDir, { recursive: true });
      await fs.writeFile(path.join(ctx.resultsDir, 'backlog-rss.json'), JSON.stringify(drain.samples));
      return report(events, fill, drain);
    } finally {
      if (drainer) await drainer.stop();
      else await setup.stop();
    }
  },
};

async function fillBacklog(
  ctx: BenchContext,
  topic: string,
  sourceId: string,
  runId: string,
  events: number,
) {
  const logger = createLogger({ level: 'error' });
  const codec = new EventCodec(await connectAvro({ url: ctx.cluster.schemaRegistryUrl, logger }));
  const producer = await rawProducer(benchKafka(ctx, 'hookline-bench-backlog'));
  const startedAt = performance.now();
  try {
    for (let first = 0; first < events; first += FILL_CHUNK) {
      const records: EncodedRecord[] = [];
      for (let i = first; i < Math.min(events, first + FILL_CHUNK); i++) {
        const event = normalizedEvent(sourceId, runId, i);
        records.push({ key: eventKey(event), value: codec.encode(event) });
      }
      await produceClosedLoop({
        producer,
        topic,
        records,
        batchSize: FILL_BATCH,
        concurrency: FILL_CONCURRENCY,
      });
      if ((first / FILL_CHUNK) % 20 === 19)
        ctx.log(`backlog: ${first + records.length} of ${events} written`);
    }
  } finally {
    await producer.disconnect();
  }
  return { elapsedMs: performance.now() - startedAt };
}

interface Drain {
  samples: RssSample[];
  heap: Map<number, string>;
  delivered: number;
  elapsedMs: number;
  complete: boolean;
  peakMb: number;
  /** CPU seconds (user + system) Hookline spent from its start to the last delivery. */
  cpuSeconds: number;
  /** Hookline's /metrics once the last event arrived. */
  metrics: string;
}

/** Samples RSS (and, at 10/50/90%, Hookline's own heap gauge) every second until all arrived. */
async function sampleDrain(ctx: BenchContext, app: SpawnedApp, receiverId: number, events: number) {
  const deadline = performance.now() + (events / SLOWEST_DRAIN_PER_S + 60) * 1_000;
  const startedAt = performance.now();
  const samples: RssSample[] = [];
  const heap = new Map<number, string>();
  let delivered = 0;
  let peakMb = 0;
  let nextMilestone = 0.1;
  while (delivered < events && performance.now() < deadline) {
    await sleep(SAMPLE_INTERVAL_MS);
    const [stats] = await ctx.harness.call('receiverStats', { ids: [receiverId] });
    const memory = readMemory(app.pid);
    if (!memory) throw new Error('Hookline exited while draining the backlog');
    delivered = stats!.count;
    peakMb = Math.max(peakMb, memory.peakMb);
    samples.push({ atS: (performance.now() - startedAt) / 1_000, delivered, rssMb: memory.rssMb });
    while (delivered >= nextMilestone * events && nextMilestone < 1) {
      heap.set(Math.round(nextMilestone * 100), heapGauges(await metricsText(app.baseUrl)));
      ctx.log(
        `backlog: ${Math.round(nextMilestone * 100)}% delivered, RSS ${memory.rssMb.toFixed(0)} MB (peak ${peakMb.toFixed(0)}), ${heap.get(Math.round(nextMilestone * 100))}`,
      );
      nextMilestone = Math.round((nextMilestone + 0.1) * 10) / 10;
    }
  }
  const drain: Drain = {
    samples,
    heap,
    delivered,
    elapsedMs: performance.now() - startedAt,
    complete: delivered >= events,
    peakMb: Math.max(peakMb, readMemory(app.pid)?.peakMb ?? 0),
    cpuSeconds: app.cpuSeconds(),
    metrics: await metricsText(app.baseUrl),
  };
  return drain;
}

/** Where the CPU went besides delivering: the garbage collector, and tasks deferred to the delay topic and read back. */
function pipelineFigures(drain: Drain): Figure[] {
  const gc = gcSeconds(drain.metrics);
  const gcTotal = gc.minor + gc.major + gc.incremental;
  const deferred = metricSum(drain.metrics, 'hookline_deliveries_total', { outcome: 'deferred' }) ?? 0;
  return [
    {
      label: 'garbage collector',
      value: (gcTotal * 1_000_000) / Math.max(1, drain.delivered),
      unit: 'µs/event',
      detail: `${((100 * gcTotal) / Math.max(drain.cpuSeconds, 1e-9)).toFixed(0)}% of the CPU: ${gc.minor.toFixed(1)} s in ${gc.scavenges} scavenges, ${(gc.major + gc.incremental).toFixed(1)} s mark-compact (pauses, hookline_nodejs_gc_duration_seconds)`,
    },
    {
      label: 'tasks deferred to the delay topic',
      value: deferred / Math.max(1, drain.delivered),
      unit: 'per event',
      detail: `${deferred} deferrals (lane backpressure), each written to the 1 s delay topic and read back`,
    },
  ];
}

function report(events: number, fill: { elapsedMs: number }, drain: Drain) {
  const rss = summariseRss(drain.samples, events);
  const heap = (p: number) => drain.heap.get(p) ?? '—';
  const figures: Figure[] = [
    { label: 'backlog written (raw kafkajs)', value: perSecond(events, fill.elapsedMs), unit: 'events/s' },
    {
      label: 'drained (delivered)',
      value: perSecond(drain.delivered, drain.elapsedMs),
      unit: 'events/s',
      detail: `${drain.delivered}/${events}${drain.complete ? '' : ' INCOMPLETE'} in ${(drain.elapsedMs / 1_000).toFixed(0)} s`,
    },
    {
      label: 'Hookline CPU',
      value: (drain.cpuSeconds * 1_000_000) / Math.max(1, drain.delivered),
      unit: 'µs/event',
      detail: 'from its start to the last delivery, router + worker',
    },
    ...pipelineFigures(drain),
    { label: 'peak RSS', value: drain.peakMb, unit: 'MB', detail: 'VmHWM of the process' },
    { label: 'RSS at 10% delivered', value: rss.at10, unit: 'MB', detail: heap(10) },
    { label: 'RSS at 50% delivered', value: rss.at50, unit: 'MB', detail: heap(50) },
    { label: 'RSS at 90% delivered', value: rss.at90, unit: 'MB', detail: heap(90) },
    {
      label: 'RSS trend after 10%',
      value: rss.slopeMbPer100k,
      unit: 'MB/100k events',
      detail: `least squares over ${rss.fitted} samples: ${rss.growthMb >= 0 ? '+' : ''}${rss.growthMb.toFixed(1)} MB from 10% to 100%`,
    },
  ];
  return {
    figures,
    checks: [
      check('peak RSS while draining', drain.peakMb, 'MB', 'max', RSS_LIMIT_MB),
      check('RSS growth 10%→100% drained (fitted)', rss.growthMb, 'MB', 'max', FLAT_GROWTH_MB),
    ],
    notes: [
      'every sample (s, delivered, RSS MB): results/backlog-rss.json',
      `Hookline: npm run start:prod's node${nodeFlags()
        .map((f) => ` ${f}`)
        .join(
          '',
        )} dist/src/process/main.js, HOOKLINE_WORKERS=1, HOOKLINE_ROLES=${ROLES}, production defaults otherwise; the events were written while it was stopped`,
      ...(drain.complete
        ? []
        : [`INCOMPLETE: ${drain.delivered} of ${events} delivered before the deadline`]),
    ],
  };
}
