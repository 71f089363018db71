import { loadavg } from 'node:os';
import { connectAvro } from '../../src/avro/connect';
import { createLogger } from '../../src/observability/logger';
import { EventCodec } from '../../src/records/event';
import { costPerDelivered, formatMachineUse, type MachineUse } from '../lib/machine-cpu';
import { deliverAndWait, warmUpToSteadyState } from '../lib/pipeline';
import { rawCeilingRound, warmRawCeiling, type RawCeilingOptions } from '../lib/raw-ceiling';
import { startRelayProcesses, type RelayProcesses } from '../lib/relay-processes';
import { benchKafka, rawProducer } from '../lib/raw-kafka';
import { check, scaled, type Figure, type Scenario } from '../lib/scenario';
import { buildDist, startSpawnedApp } from '../lib/spawned-app';
import { perSecond } from '../lib/stats';

const EVENTS = 10_000;
const DELIVERY_TIMEOUT_MS = 120_000;
/** The worker's default per-destination concurrency, as the e2e scenario's raw POST baseline. */
const DESTINATION_CONCURRENCY = 50;
const TARGET_RATIO = 0.6;
const PROCESS_COUNTS = [1, 2] as const;
/** Rounds of each side per process count, interleaved (raw, Hookline, ...); the median ratio counts. */
const ROUNDS = 3;

interface Round {
  ratio: number;
  delivered: number;
  ceiling: number;
  cpuUs: number;
  machine: MachineUse | undefined;
  /** The recorded relay in as many processes, the same round (lib/relay-cluster.ts). */
  relay: { ratio: number; delivered: number; cpuUs: number; machine: MachineUse | undefined };
}

/** The shared secret the destination has, so that the relay signs as much. */
const SHARED_SECRET = 'bench-shared-secret';

/**
 * Issue 16, "use the whole machine": the e2e pipeline with Hookline started as production starts
 * it (`npm run start:prod`: the compiled dist/src/process/main.js with its V8 flags, as the image runs it;
 * its own processes) with HOOKLINE_WORKERS=1 and =2. Per process count, ROUNDS interleaved rounds
 * of the e2e raw ceiling (measured in the bench process) and Hookline's run; each round's ratio is
 * delivered ÷ that round's ceiling, and the median round is shown. CPU is the whole process
 * tree's (primary and children); beside it the whole machine's (every process: the broker and the
 * load generator too), which says how much of the two cores the run left idle.
 */
export const processesScenario: Scenario = {
  name: 'processes',
  title: 'End to end with HOOKLINE_WORKERS=1 and 2 (own processes) vs raw ceiling — issue 16',
  async run(ctx) {
    const events = scaled(ctx, EVENTS);
    await buildDist(ctx, 'processes');
    const loadBefore = loadavg()[0]!;
    const {
      ids: [receiverId],
      urls: [url],
    } = await ctx.harness.call('startReceivers', { count: 1 });
    const receiverIds = [receiverId!];
    const figures: Figure[] = [];
    const notes: string[] = [];
    const medians = new Map<number, Round>();
    const kafka = benchKafka(ctx, 'hookline-bench-raw');
    const avro = await connectAvro({
      url: ctx.cluster.schemaRegistryUrl,
      logger: createLogger({ level: 'error' }),
    });
    const relays: RelayProcesses[] = [];
    for (const workers of PROCESS_COUNTS) {
      const app = await startSpawnedApp(ctx, { scenario: `procs${workers}`, workers, built: true });
      // One producer per app: it would otherwise keep asking for the deleted topics of the last.
      const producer = await rawProducer(kafka);
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
        const rawOptions: RawCeilingOptions = {
          kafka,
          producer,
          codec: new EventCodec(avro),
          prefix: app.prefix,
          sourceId: source.id,
          url: url!,
          events,
          concurrency: DESTINATION_CONCURRENCY,
        };
        await warmRawCeiling(rawOptions);
        // The recorded relay (lib/e2e-floor.ts), in as many processes as Hookline: what the issues
        // ask of every delivered event, with Hookline's parts, and nothing else.
        const relay = await startRelayProcesses(ctx, {
          processes: workers,
          prefix: app.prefix,
          url: url!,
          concurrency: DESTINATION_CONCURRENCY,
          sourceId: source.id,
          secret: SHARED_SECRET,
        });
        relays.push(relay);
        await warmUpToSteadyState(ctx, relay, {
          writeKey: source.writeKey,
          receiverIds,
          events,
          timeoutMs: DELIVERY_TIMEOUT_MS,
        });
        const rounds: Round[] = [];
        for (let round = 1; round <= ROUNDS; round++) {
          const raw = await rawCeilingRound(rawOptions, round);
          /** One run of `events` through `target` (Hookline or the relay): delivered/s, CPU, the machine. */
          const measure = async (target: typeof app | typeof relay, name: string, label: string) => {
            const { run, cpuUs, machine } = await costPerDelivered(
              target.cpuSeconds,
              () =>
                deliverAndWait(ctx, target, {
                  writeKey: source.writeKey,
                  receiverIds,
                  events,
                  label: `${label}${workers}-${round}`,
                  timeoutMs: DELIVERY_TIMEOUT_MS,
                }),
              { hooklinePids: [target.pid] },
            );
            if (!run.complete)
              notes.push(
                `INCOMPLETE (${name}${workers} process(es), round ${round}): ${run.delivered}/${events}`,
              );
            return { delivered: perSecond(run.delivered, run.elapsedMs), cpuUs, machine };
          };
          const { delivered, cpuUs, machine } = await measure(app, '', 'procs');
          const relayed = await measure(relay, 'the relay, ', 'relay');
          rounds.push({
            ratio: delivered / raw.ceiling,
            delivered,
            ceiling: raw.ceiling,
            cpuUs,
            machine,
            relay: { ratio: relayed.delivered / raw.ceiling, ...relayed },
          });
          ctx.log(
            `processes: ${workers} process(es), round ${round}: raw ceiling ${Math.round(raw.ceiling)}/s, delivered ${Math.round(delivered)}/s, the recorded relay ${Math.round(relayed.delivered)}/s`,
          );
        }
        const mid = [...rounds].sort((a, b) => a.ratio - b.ratio)[ROUNDS >> 1]!;
        medians.set(workers, mid);
        const relayMid = [...rounds].sort((a, b) => a.relay.ratio - b.relay.ratio)[ROUNDS >> 1]!.relay;
        const toRelay = rounds.map((r) => r.delivered / r.relay.delivered).sort((a, b) => a - b);
        figures.push(
          {
            label: `HOOKLINE_WORKERS=${workers}: raw ceiling`,
            value: mid.ceiling,
            unit: 'events/s',
            detail: 'min(raw produce then consume, raw keep-alive POST), the same round',
          },
          {
            label: `HOOKLINE_WORKERS=${workers}: delivered`,
            value: mid.delivered,
            unit: 'events/s',
            detail: `${mid.ratio.toFixed(2)}× the ceiling; rounds ${rounds.map((r) => r.ratio.toFixed(2)).join(', ')}`,
          },
          {
            label: `HOOKLINE_WORKERS=${workers}: CPU`,
            value: mid.cpuUs,
            unit: 'µs/event',
            detail: 'primary + children',
          },
          {
            label: `HOOKLINE_WORKERS=${workers}: machine CPU`,
            value: mid.machine?.busyUsPer ?? Number.NaN,
            unit: 'µs/event',
            detail: formatMachineUse(mid.machine),
          },
          {
            label: `${workers} process(es): recorded relay ÷ raw ceiling`,
            value: relayMid.ratio,
            unit: '×',
            detail: `lib/relay-cluster.ts, median of ${ROUNDS} rounds: ${rounds.map((r) => r.relay.ratio.toFixed(2)).join(', ')}; ${relayMid.cpuUs.toFixed(1)} µs CPU/event (primary + children); ${formatMachineUse(relayMid.machine)}`,
          },
          {
            label: `HOOKLINE_WORKERS=${workers} ÷ recorded relay`,
            value: toRelay[ROUNDS >> 1]!,
            unit: '×',
            detail: `median of ${ROUNDS} rounds: ${rounds.map((r) => (r.delivered / r.relay.delivered).toFixed(2)).join(', ')}`,
          },
        );
      } finally {
        for (const relay of relays.splice(0)) await relay.stop();
        await producer.disconnect();
        await app.stop();
      }
    }
    const [one, two] = PROCESS_COUNTS.map((n) => medians.get(n)!);
    figures.push({ label: 'speed-up, 2 processes ÷ 1', value: two!.delivered / one!.delivered, unit: '×' });
    notes.push(
      `1-minute load average ${loadBefore.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after (2 CPUs): above ~2, other work shares the cores and the speed-up understates`,
    );
    return {
      figures,
      checks: [
        check('delivered/s with HOOKLINE_WORKERS=2 ÷ raw ceiling', two!.ratio, '×', 'min', TARGET_RATIO),
      ],
      notes,
    };
  },
};
