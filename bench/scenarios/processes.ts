import { loadavg } from 'node:os';
import { connectAvro } from '../../src/avro/connect';
import { createLogger } from '../../src/observability/logger';
import { EventCodec } from '../../src/records/event';
import { deliverAndWait, warmUpToSteadyState } from '../lib/pipeline';
import { measureRawCeiling } from '../lib/raw-ceiling';
import { benchKafka, rawProducer } from '../lib/raw-kafka';
import { check, scaled, type Figure, type Scenario } from '../lib/scenario';
import { startSpawnedApp } from '../lib/spawned-app';
import { perSecond } from '../lib/stats';

const EVENTS = 10_000;
const DELIVERY_TIMEOUT_MS = 120_000;
/** The worker's default per-destination concurrency, as the e2e scenario's raw POST baseline. */
const DESTINATION_CONCURRENCY = 50;
const TARGET_RATIO = 0.6;
const PROCESS_COUNTS = [1, 2] as const;

/**
 * Issue 16, "use the whole machine": the e2e pipeline with Hookline started as `npm start` starts
 * it (src/main.ts, its own processes) with HOOKLINE_WORKERS=1 and =2, each against the e2e raw
 * ceiling measured in the same run. CPU is the whole process tree's (primary and children). The
 * load average is printed beside: on a shared 2-core machine it says how much the figures mean.
 */
export const processesScenario: Scenario = {
  name: 'processes',
  title: 'End to end with HOOKLINE_WORKERS=1 and 2 (own processes) vs raw ceiling — issue 16',
  async run(ctx) {
    const events = scaled(ctx, EVENTS);
    const loadBefore = loadavg()[0]!;
    const {
      ids: [receiverId],
      urls: [url],
    } = await ctx.harness.call('startReceivers', { count: 1 });
    const receiverIds = [receiverId!];
    const figures: Figure[] = [];
    const delivered = new Map<number, number>();
    let ceiling = Number.NaN;
    for (const workers of PROCESS_COUNTS) {
      const app = await startSpawnedApp(ctx, { scenario: `procs${workers}`, workers });
      try {
        const source = await app.source('bench processes');
        await app.destination(source.id, url!, 'bench receiver');
        ctx.log(`processes: ${workers} process(es), warming up`);
        await warmUpToSteadyState(ctx, app, {
          writeKey: source.writeKey,
          receiverIds,
          events,
          timeoutMs: DELIVERY_TIMEOUT_MS,
        });
        if (workers === PROCESS_COUNTS[0]) {
          const raw = await rawCeilingOf(ctx, app.prefix, source.id, url!, events);
          ceiling = raw.ceiling;
          figures.push(
            { label: '(a) raw produce then consume', value: raw.kafkaCeiling, unit: 'events/s' },
            { label: '(b) raw keep-alive POST', value: raw.httpCeiling, unit: 'POST/s' },
            { label: 'raw ceiling = min(a, b)', value: raw.ceiling, unit: 'events/s' },
          );
        }
        const cpuBefore = app.cpuSeconds();
        const run = await deliverAndWait(ctx, app, {
          writeKey: source.writeKey,
          receiverIds,
          events,
          label: `procs${workers}`,
          timeoutMs: DELIVERY_TIMEOUT_MS,
        });
        const cpuSeconds = app.cpuSeconds() - cpuBefore;
        const rate = perSecond(run.delivered, run.elapsedMs);
        delivered.set(workers, rate);
        ctx.log(`processes: ${workers} process(es) delivered ${Math.round(rate)}/s`);
        figures.push(
          {
            label: `HOOKLINE_WORKERS=${workers}: delivered`,
            value: rate,
            unit: 'events/s',
            detail: `${run.delivered}/${events}${run.complete ? '' : ' INCOMPLETE'}, ${(rate / ceiling).toFixed(2)}× the ceiling`,
          },
          {
            label: `HOOKLINE_WORKERS=${workers}: CPU`,
            value: (cpuSeconds * 1_000_000) / Math.max(1, run.delivered),
            unit: 'µs/event',
            detail: 'primary + children',
          },
        );
      } finally {
        await app.stop();
      }
    }
    const [one, two] = PROCESS_COUNTS.map((n) => delivered.get(n)!);
    figures.push({ label: 'speed-up, 2 processes ÷ 1', value: two! / one!, unit: '×' });
    const loadAfter = loadavg()[0]!;
    return {
      figures,
      checks: [
        check('delivered/s with HOOKLINE_WORKERS=2 ÷ raw ceiling', two! / ceiling, '×', 'min', TARGET_RATIO),
      ],
      notes: [
        `1-minute load average ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after (2 CPUs): above ~2, other work shares the cores and the speed-up understates`,
      ],
    };
  },
};

async function rawCeilingOf(
  ctx: Parameters<Scenario['run']>[0],
  prefix: string,
  sourceId: string,
  url: string,
  events: number,
) {
  const logger = createLogger({ level: 'error' });
  const avro = await connectAvro({ url: ctx.cluster.schemaRegistryUrl, logger });
  const kafka = benchKafka(ctx, 'hookline-bench-raw');
  const producer = await rawProducer(kafka);
  try {
    return await measureRawCeiling({
      kafka,
      producer,
      codec: new EventCodec(avro),
      prefix,
      sourceId,
      url,
      events,
      concurrency: DESTINATION_CONCURRENCY,
    });
  } finally {
    await producer.disconnect();
  }
}
