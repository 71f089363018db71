import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { eventKey } from '../../src/events/types';
import type { Logger } from '../../src/observability/logger';
import { Analytics, MAX_BATCH_BYTES, QueueFullError, type TrackMessage } from '../../src/producer';
import { normalizeCall, rawMessage } from '../../src/producer/messages';
import { DEFAULT_FLUSH_AT } from '../../src/producer/options';
import { runId, startBenchApp } from '../lib/app';
import { formatSummary, startProfiler } from '../lib/profile';
import { trackEvent, type EncodedRecord } from '../lib/events';
import { produceCallsClosedLoop } from '../lib/producer-floor';
import { benchKafka, produceClosedLoop, rawProducer, type Throughput } from '../lib/raw-kafka';
import { check, scaled, type Check, type Figure, type Scenario } from '../lib/scenario';
import { cpuMsSince, median, medianIndex, perSecond } from '../lib/stats';

const EVENTS = 50_000;
const WARM_UP_EVENTS = 5_000;
/** The library's default (20), then larger batches. */
const FLUSH_AT = [DEFAULT_FLUSH_AT, 100, 500] as const;
/**
 * Calls per round: 500 batches at flushAt 20 and 100 (as many produce round trips), 100 at 500.
 * flushAt 20 would take 2,500 round trips for 50,000 calls, and a minute per run more.
 */
const CALLS: Record<(typeof FLUSH_AT)[number], number> = {
  [DEFAULT_FLUSH_AT]: 10_000,
  100: 50_000,
  500: 50_000,
};
/** Which flushAt the profile (--profile) is of. */
const PROFILED_FLUSH_AT = 100;
/** Rounds of each side, interleaved (raw, library, ...); the median round's ratio counts. */
const ROUNDS = 3;
/** Issue 16: the library ≥ 0.8 × raw produce (a warning below it). */
const TARGET_RATIO = 0.8;
/** No round may take longer than this. */
const ROUND_TIMEOUT_MS = 60_000;

interface LibraryRound {
  count: number;
  /** First track() → close() resolved (the figure the issue asks for). */
  elapsedMs: number;
  /** First track() → the last batch acknowledged (close() then only disconnects). */
  ackedMs: number;
  /** Time spent inside track() calls: validation, normalisation, Avro encoding, queueing. */
  trackMs: number;
  cpuMs: number;
  /** QueueFullErrors met (each answered with `await waitForRoom()`). */
  queueFull: number;
  /** Calls per batch the library sent (from its `batch acknowledged` debug lines). */
  batches: number[];
}

const rawRate = (r: Throughput) => perSecond(r.count, r.elapsedMs);
const libRate = (l: LibraryRound) => perSecond(l.count, l.elapsedMs);

/**
 * A logger that writes nothing and counts the library's batches: its `batch acknowledged`
 * debug line carries the batch's message count (and its time is when the last one landed). The
 * hook returns before pino formats anything, so the other debug lines (one `queued` per call)
 * cost a function call each.
 */
function batchCounter(): { logger: Logger; batches: number[]; lastAckAt: () => number } {
  const batches: number[] = [];
  let lastAckAt = 0;
  const logger = pino({
    level: 'debug',
    hooks: {
      logMethod(args) {
        const [fields, message] = args as unknown[];
        if (message !== 'batch acknowledged') return;
        batches.push((fields as { messages: number }).messages);
        lastAckAt = performance.now();
      },
    },
  });
  return { logger, batches, lastAckAt: () => lastAckAt };
}

/**
 * Issue 7: events/s through the producer library (`hookline/producer`, Kafka transport): N
 * track() calls as fast as it accepts them (a QueueFullError is answered with
 * `await waitForRoom()`, as its README says), then close(), which sends what is still queued,
 * timed until close() resolves. Baseline, same run, same topic:
 * a raw kafkajs idempotent producer (acks=-1) sending the records the library writes for the
 * same calls (its own normalizeCall + the app's EventCodec), one sendBatch at a time (the library
 * has one batch in flight) of flushAt records; and, as a second reference, of ≤ 500 KB, the
 * batches the library actually sends under load. Hookline runs only the ingest role (the
 * catalog the library reads), so nothing consumes the events meanwhile.
 */
export const producerScenario: Scenario = {
  name: 'producer',
  title: 'Producer library (Kafka transport) vs raw kafkajs produce — issue 7',
  async run(ctx) {
    const events = scaled(ctx, EVENTS);
    const app = await startBenchApp(ctx, 'producer', { HOOKLINE_ROLES: 'ingest' });
    const kafka = benchKafka(ctx, 'hookline-bench-raw');
    const producer = await rawProducer(kafka);
    try {
      const source = await app.source('bench producer');
      const codec = app.app.parts.events;
      const topic = app.app.parts.topics.events;
      const run = runId('prod');
      const calls = Array.from({ length: events }, (_, i) => trackEvent(run, i) as unknown as TrackMessage);
      // The records the library writes for these calls: its own normalisation, the app's codec.
      const records: EncodedRecord[] = calls.map((call) => {
        const { event } = normalizeCall(rawMessage('track', call, randomUUID), {
          sourceId: source.id,
          receivedAtMs: Date.now(),
        });
        return { key: eventKey(event), value: codec.encode(event) };
      });
      const recordBytes = records.reduce((n, r) => n + Buffer.byteLength(r.key) + r.value.length, 0) / events;
      const fullBatch = Math.floor(MAX_BATCH_BYTES / recordBytes);

      const callsAt = (flushAt: (typeof FLUSH_AT)[number]) => Math.min(events, scaled(ctx, CALLS[flushAt]));
      const rawRound = (batchSize: number, count = events) =>
        produceClosedLoop({ producer, topic, records: records.slice(0, count), batchSize, concurrency: 1 });
      const floorRound = (batchSize: number, count = events) =>
        produceCallsClosedLoop({
          producer,
          topic,
          codec,
          sourceId: source.id,
          calls: calls.slice(0, count),
          batchSize,
        });
      const libraryRound = async (flushAt: number, count = events): Promise<LibraryRound> => {
        const { logger, batches, lastAckAt } = batchCounter();
        const analytics = await Analytics.connect(source.writeKey, {
          brokers: ctx.cluster.kafkaBrokers,
          registry: ctx.cluster.schemaRegistryUrl,
          topicPrefix: app.prefix,
          flushAt,
          logger,
          env: {},
        });
        let closed = false;
        try {
          const cpu = process.cpuUsage();
          const startedAt = performance.now();
          const deadline = startedAt + ROUND_TIMEOUT_MS;
          let trackMs = 0;
          let queueFull = 0;
          let i = 0;
          while (i < count) {
            const from = performance.now();
            try {
              while (i < count) analytics.track(calls[i++]!);
            } catch (err) {
              if (!(err instanceof QueueFullError)) throw err;
              i--; // not queued: made again once there is room
              queueFull++;
            }
            trackMs += performance.now() - from;
            if (i < count) {
              if (performance.now() > deadline)
                throw new Error(`the library round took over ${ROUND_TIMEOUT_MS} ms`);
              await analytics.waitForRoom();
            }
          }
          // As its README says to end: close() sends what is queued, then disconnects.
          await analytics.close();
          closed = true;
          const elapsedMs = performance.now() - startedAt;
          const ackedMs = lastAckAt() - startedAt;
          return { count, elapsedMs, ackedMs, trackMs, cpuMs: cpuMsSince(cpu), queueFull, batches };
        } finally {
          if (!closed) await analytics.close().catch(() => undefined);
        }
      };

      ctx.log(`producer: warming up (${WARM_UP_EVENTS} events each way)`);
      await rawRound(FLUSH_AT[0], WARM_UP_EVENTS);
      await floorRound(FLUSH_AT[0], WARM_UP_EVENTS);
      await libraryRound(FLUSH_AT[0], WARM_UP_EVENTS);

      const raw = new Map<number, Throughput[]>(FLUSH_AT.map((f) => [f, []]));
      const lib = new Map<number, LibraryRound[]>(FLUSH_AT.map((f) => [f, []]));
      const floor = new Map<number, Throughput[]>(FLUSH_AT.map((f) => [f, []]));
      const rawFull: Throughput[] = [];
      const profiled = async <T>(on: boolean, title: string, name: string, run: () => Promise<T>) => {
        const profiler = on ? await startProfiler(ctx.resultsDir) : undefined;
        const result = await run();
        if (profiler) profileNotes.push(...formatSummary(title, await profiler.stop(name)));
        return result;
      };
      const profileNotes: string[] = [];
      for (let round = 1; round <= ROUNDS; round++) {
        for (const flushAt of FLUSH_AT) {
          // --profile: the last round of flushAt 100, each side.
          const on = ctx.profile && round === ROUNDS && flushAt === PROFILED_FLUSH_AT;
          const count = callsAt(flushAt);
          raw
            .get(flushAt)!
            .push(
              await profiled(on, `raw sendBatch(${flushAt}) (last round)`, 'producer-raw', () =>
                rawRound(flushAt, count),
              ),
            );
          floor.get(flushAt)!.push(await floorRound(flushAt, count));
          lib
            .get(flushAt)!
            .push(
              await profiled(on, `the library, flushAt ${flushAt} (last round)`, 'producer', () =>
                libraryRound(flushAt, count),
              ),
            );
        }
        rawFull.push(await rawRound(fullBatch));
        ctx.log(
          `producer round ${round}: ${FLUSH_AT.map((f) => `flushAt ${f}: raw ${Math.round(rawRate(raw.get(f)![round - 1]!))}/s, floor ${Math.round(rawRate(floor.get(f)![round - 1]!))}/s, library ${Math.round(libRate(lib.get(f)![round - 1]!))}/s`).join('; ')}; raw ≤ 500 KB batches ${Math.round(rawRate(rawFull[round - 1]!))}/s`,
        );
      }

      const figures: Figure[] = [];
      const checks: Check[] = [];
      const notes: string[] = [];
      for (const flushAt of FLUSH_AT) {
        const raws = raw.get(flushAt)!;
        const libs = lib.get(flushAt)!;
        const floors = floor.get(flushAt)!;
        const ratios = libs.map((l, i) => libRate(l) / rawRate(raws[i]!));
        const floorToRaw = floors.map((f, i) => rawRate(f) / rawRate(raws[i]!));
        const libToFloor = libs.map((l, i) => libRate(l) / rawRate(floors[i]!));
        const mid = medianIndex(ratios);
        const [r, l, full] = [raws[mid]!, libs[mid]!, rawFull[mid]!];
        const batchMean = l.batches.reduce((a, b) => a + b, 0) / Math.max(1, l.batches.length);
        figures.push(
          {
            label: `flushAt ${flushAt}: raw sendBatch(${flushAt})`,
            value: rawRate(r),
            unit: 'events/s',
            detail: `1 at a time, acks=-1, idempotent; ${((r.cpuMs * 1_000) / r.count).toFixed(1)} µs CPU/event`,
          },
          {
            label: `flushAt ${flushAt}: library track → close()`,
            value: libRate(l),
            unit: 'events/s',
            detail: `${((l.cpuMs * 1_000) / l.count).toFixed(1)} µs CPU/event`,
          },
          {
            label: `flushAt ${flushAt}: library ÷ raw`,
            value: ratios[mid]!,
            unit: '×',
            detail: `median of ${ROUNDS} rounds: ${ratios.map((x) => x.toFixed(2)).join(', ')}`,
          },
          {
            label: `flushAt ${flushAt}: floor ÷ raw`,
            value: median(floorToRaw),
            unit: '×',
            detail: `median of ${ROUNDS} rounds: ${floorToRaw.map((x) => x.toFixed(2)).join(', ')}; the calls' own work, then sendBatch(${flushAt}) (lib/producer-floor.ts)`,
          },
          {
            label: `flushAt ${flushAt}: library ÷ floor`,
            value: median(libToFloor),
            unit: '×',
            detail: `median of ${ROUNDS} rounds: ${libToFloor.map((x) => x.toFixed(2)).join(', ')}`,
          },
          {
            label: `flushAt ${flushAt}: library ÷ raw ≤ 500 KB batches`,
            value: libRate(l) / rawRate(full),
            unit: '×',
            detail: `raw sendBatch(${fullBatch}) ${Math.round(rawRate(full))} events/s, same round`,
          },
        );
        checks.push(
          check(
            `flushAt ${flushAt}${flushAt === DEFAULT_FLUSH_AT ? ' (default)' : ''}: library ÷ raw`,
            ratios[mid]!,
            '×',
            'min',
            TARGET_RATIO,
          ),
        );
        notes.push(
          `flushAt ${flushAt} (median round): ${l.count} calls; ${Math.round(l.trackMs)} ms inside track() (${((l.trackMs * 1_000) / l.count).toFixed(1)} µs/call: normalise + encode + queue), ${Math.round(l.ackedMs - l.trackMs)} ms waiting for room and acknowledgements, ${Math.round(l.elapsedMs - l.ackedMs)} ms in close() after the last ack; ${l.queueFull} QueueFullErrors; ${l.batches.length} batches, mean ${Math.round(batchMean)} calls (first ${l.batches[0] ?? 0}, largest ${Math.max(0, ...l.batches)}); to the last ack ${Math.round(perSecond(l.count, l.ackedMs))} events/s`,
        );
      }
      notes.push(
        `records: ${Math.round(recordBytes)} bytes each (key + Avro value); a 500 KB batch holds ${fullBatch}; raw ≤ 500 KB rounds: ${rawFull.map((r) => Math.round(rawRate(r))).join(', ')} events/s (median ${Math.round(median(rawFull.map(rawRate)))})`,
      );
      notes.push(...profileNotes);
      return { figures, checks, notes };
    } finally {
      await producer.disconnect();
      await app.stop();
    }
  },
};
