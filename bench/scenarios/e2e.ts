import { BENCH_PARTITIONS, BENCH_SHARED_SECRET, startBenchApp } from '../lib/app';
import { formatStages, sampleStages } from '../lib/app-metrics';
import {
  BATCH_SIZE,
  CLIENTS,
  deliverAndWait,
  JOIN_WARM_UP_EVENTS,
  warmUpToSteadyState,
} from '../lib/pipeline';
import { floorFigures, floorRate, startE2eFloor, type E2eFloor, type E2eFloorKind } from '../lib/e2e-floor';
import { formatMachineUse, machineCpu, machineUseSince, type MachineUse } from '../lib/machine-cpu';
import { watchPauses } from '../lib/pauses';
import { formatSummary, startProfiler } from '../lib/profile';
import { CEILING_CONNECTIONS, measureCompiledCeiling } from '../lib/compiled-ceiling';
import { rawCeilingRound, warmRawCeiling, webhookBody, type RawCeiling } from '../lib/raw-ceiling';
import { benchKafka, rawProducer } from '../lib/raw-kafka';
import { check, scaled, type Scenario } from '../lib/scenario';
import { median, medianIndex, perSecond, usPerItem } from '../lib/stats';
import type { DeliveryRun } from '../lib/pipeline';

const EVENTS = 10_000;
const TARGET_RATIO = 0.6;
/** Issue 16: e2e against the receiver's HTTP ceiling as a compiled load client measures it. */
const COMPILED_TARGET_RATIO = 0.3;
/** Issue 16: Hookline's CPU per delivered event ≤ 2× the raw path's (produce + consume + POST). */
const CPU_TARGET_RATIO = 2;
const DELIVERY_TIMEOUT_MS = 120_000;
/** Rounds of each side, interleaved (raw, Hookline, ...): one run swings ±10% on this machine. */
const ROUNDS = 3;
/** The floors run in each round, and how the figures name them. */
const FLOORS: [E2eFloorKind, string][] = [
  ['least', 'floor'],
  ['mandated', 'mandated relay'],
  ['recorded', 'recorded relay'],
];

interface Round {
  raw: RawCeiling;
  run: DeliveryRun;
  rawCpu: number;
  delivered: number;
  hooklineCpu: number;
  /** The whole machine over Hookline's run (every process), per delivered event. */
  machine: MachineUse | undefined;
  /** Garbage-collection pauses of this process over Hookline's run, µs per delivered event. */
  gcUs: number;
  /** The same run through each end-to-end floor (lib/e2e-floor.ts), and the machine's CPU over it. */
  floors: Record<E2eFloorKind, DeliveryRun>;
  floorMachines: Record<E2eFloorKind, MachineUse | undefined>;
}

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
    const floors: E2eFloor[] = [];
    try {
      const { config, events: codec, avro, admin } = app.app.parts;
      const {
        ids: [receiverId],
        urls: [url],
      } = await ctx.harness.call('startReceivers', { count: 1 });
      const source = await app.source('bench e2e');
      await app.destination(source.id, url!, 'bench receiver');
      const receiverIds = [receiverId!];
      ctx.log(`e2e: warming up the pipeline (${JOIN_WARM_UP_EVENTS} events, then ${events})`);
      const runOptions = { writeKey: source.writeKey, receiverIds, events, timeoutMs: DELIVERY_TIMEOUT_MS };
      await warmUpToSteadyState(ctx, app, runOptions);

      // (c) the same body to the same receiver from a compiled client with many connections.
      const compiled = await measureCompiledCeiling({
        url: url!,
        body: webhookBody(source.id),
        log: ctx.log,
      });
      if (compiled.ok)
        ctx.log(`e2e: compiled client ${Math.round(compiled.ceiling.requestsPerSecond)} POST/s`);

      // (a) raw Kafka produce then consume; (b) raw HTTP: the webhook body Hookline sends, with the
      // worker's concurrency per destination. Interleaved with Hookline's runs, ROUNDS of each.
      const concurrency = config.delivery.destinationConcurrency;
      const rawOptions = {
        kafka,
        producer,
        codec,
        prefix: app.prefix,
        sourceId: source.id,
        url: url!,
        events,
        concurrency,
      };
      await warmRawCeiling(rawOptions);
      for (const [kind] of FLOORS) {
        const floor = await startE2eFloor({
          ...rawOptions,
          kind,
          url: url!,
          secret: BENCH_SHARED_SECRET,
          config,
          avro,
          admin,
        });
        floors.push(floor);
        await warmUpToSteadyState(ctx, floor, runOptions);
      }
      const rounds: Round[] = [];
      const incomplete: string[] = [];
      let notes: string[] = [];
      for (let round = 1; round <= ROUNDS; round++) {
        const raw = await rawCeilingRound(rawOptions, round);
        // --profile and the stage timeline: the last round (the floor's profile too).
        const last = round === ROUNDS;
        const floorRuns = {} as Record<E2eFloorKind, DeliveryRun>;
        const floorMachines = {} as Record<E2eFloorKind, MachineUse | undefined>;
        const floorProfile: string[] = [];
        for (const floor of floors) {
          const profiler = ctx.profile && last ? await startProfiler(ctx.resultsDir) : undefined;
          const floorMachineBefore = machineCpu();
          floorRuns[floor.kind] = await deliverAndWait(ctx, floor, {
            ...runOptions,
            label: `floor-${floor.kind}-${round}`,
          });
          floorMachines[floor.kind] = machineUseSince(floorMachineBefore, floorRuns[floor.kind].delivered);
          if (profiler)
            floorProfile.push(
              ...formatSummary(
                `the ${floor.kind} floor (the last round)`,
                await profiler.stop(`e2e-floor-${floor.kind}`),
                floorRuns[floor.kind].delivered,
              ),
            );
        }
        const profiler = ctx.profile && last ? await startProfiler(ctx.resultsDir) : undefined;
        const sampler = last ? await sampleStages(app.app.parts.metrics) : undefined;
        const machineBefore = machineCpu();
        const pauses = watchPauses();
        const run = await deliverAndWait(ctx, app, { ...runOptions, label: `e2e-${round}` });
        const gcUs = usPerItem(pauses.stop().gcTotalMs, run.delivered);
        if (sampler) notes = formatStages(await sampler.stop());
        if (profiler)
          notes.push(
            ...formatSummary(
              'Hookline, all roles (the last round)',
              await profiler.stop('e2e'),
              run.delivered,
            ),
            ...floorProfile,
          );
        if (!run.complete)
          incomplete.push(
            `INCOMPLETE (round ${round}): ${run.delivered} of ${events} delivered within ${DELIVERY_TIMEOUT_MS / 1_000} s`,
          );
        const { produced, consumed, posted } = raw;
        const rawCpu =
          usPerItem(produced.cpuMs, events) +
          usPerItem(consumed.cpuMs, events) +
          usPerItem(posted.cpuMs, posted.sent);
        const delivered = perSecond(run.delivered, run.elapsedMs);
        const hooklineCpu = usPerItem(run.appCpuMs, run.delivered);
        const machine = machineUseSince(machineBefore, run.delivered);
        rounds.push({
          raw,
          run,
          rawCpu,
          delivered,
          hooklineCpu,
          machine,
          gcUs,
          floors: floorRuns,
          floorMachines,
        });
        ctx.log(
          `e2e round ${round}: raw Kafka produce+consume ${Math.round(raw.kafkaCeiling)}/s, raw POST ${Math.round(raw.httpCeiling)}/s, ${rawCpu.toFixed(1)} µs/event; floors ${FLOORS.map(([k]) => `${k} ${Math.round(floorRate(floorRuns[k]))}/s`).join(', ')}; Hookline delivered ${Math.round(delivered)}/s, ${hooklineCpu.toFixed(1)} µs/event`,
        );
      }
      const ratios = rounds.map((r) => r.delivered / r.raw.ceiling);
      const cpuRatios = rounds.map((r) => r.hooklineCpu / r.rawCpu);
      // The figures below are the round whose delivered ÷ ceiling is the median.
      const mid = rounds[medianIndex(ratios)]!;
      const { produced, consumed, posted, kafkaCeiling, httpCeiling, ceiling } = mid.raw;
      const { run, delivered, hooklineCpu, rawCpu, machine } = mid;
      const deliveredRates = rounds.map((r) => r.delivered);
      notes.unshift(...incomplete);
      if (!compiled.ok) notes.push(`(c) skipped: ${compiled.reason}`);
      const list = (values: number[], digits: number) => values.map((v) => v.toFixed(digits)).join(', ');
      notes.push(
        `${ROUNDS} interleaved rounds (raw, Hookline); checks are the median of the rounds' ratios, figures the round of the median delivered ÷ raw ceiling. Per round: delivered ÷ raw ceiling ${list(ratios, 2)}; CPU ÷ raw ${list(cpuRatios, 2)}; Hookline ${list(deliveredRates, 0)} delivered/s at ${list(
          rounds.map((r) => r.hooklineCpu),
          1,
        )} µs/event; raw ${list(
          rounds.map((r) => r.rawCpu),
          1,
        )} µs/event`,
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
          ...FLOORS.flatMap(([kind, name]) =>
            floorFigures(
              name,
              rounds.map((r) => ({
                floor: r.floors[kind],
                machine: r.floorMachines[kind],
                raw: r.raw,
                delivered: r.delivered,
              })),
              {
                compiledCeiling: compiled.ok ? compiled.ceiling.requestsPerSecond : undefined,
                failedPosts: floors.find((f) => f.kind === kind)?.failedPosts ?? 0,
              },
            ),
          ),
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
            label: 'machine CPU during Hookline’s run',
            value: machine?.busyUsPer ?? Number.NaN,
            unit: 'µs/event',
            detail: `${formatMachineUse(machine)}; rounds ${rounds.map((r) => (r.machine ? `${Math.round(r.machine.busy * 100)}%` : '?')).join(', ')} busy`,
          },
          {
            label: 'Hookline CPU (all roles)',
            value: hooklineCpu,
            unit: 'µs/event',
            detail: 'this process, first call → last delivery',
          },
          {
            label: 'Hookline GC pauses',
            value: mid.gcUs,
            unit: 'µs/event',
            detail: `on the event loop (concurrent marking not included); rounds ${rounds.map((r) => r.gcUs.toFixed(1)).join(', ')}`,
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
            detail: `${usPerItem(produced.cpuMs, events).toFixed(0)} + ${usPerItem(consumed.cpuMs, events).toFixed(0)} + ${usPerItem(posted.cpuMs, posted.sent).toFixed(0)}`,
          },
        ],
        checks: [
          check('delivered/s ÷ raw ceiling', median(ratios), '×', 'min', TARGET_RATIO),
          check(
            'CPU per event ÷ raw produce + consume + POST',
            median(cpuRatios),
            '×',
            'max',
            CPU_TARGET_RATIO,
          ),
          ...(compiled.ok
            ? [
                check(
                  'delivered/s ÷ compiled-client HTTP ceiling',
                  median(deliveredRates) / compiled.ceiling.requestsPerSecond,
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
      for (const floor of floors) await floor.stop();
      await producer.disconnect();
      await app.stop();
    }
  },
};
