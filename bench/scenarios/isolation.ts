import { startBenchApp, type BenchApp } from '../lib/app';
import { formatStages, sampleStages } from '../lib/app-metrics';
import { startProfiler } from '../lib/profile';
import { deliverAndWait, warmUp, type DeliveryRun } from '../lib/pipeline';
import { check, scaled, type Scenario } from '../lib/scenario';
import { perSecond } from '../lib/stats';
import { sleep } from '../lib/wait';
import { STALL_FLOOR_MS } from '../../src/delivery/admission';

/** Events per run; each goes to every destination of its source. */
const EVENTS = 2_000;
const TARGET_RATIO = 0.9;
const RUN_TIMEOUT_MS = 120_000;

/**
 * Isolation: one source with `destinations` destinations; in the fault run `hung` of them never
 * answer (their receivers read the request and stay silent, so each attempt waits out the real
 * 5 s timeout). Healthy-destination throughput — deliveries/s to the destinations that are
 * healthy in every run, over the same number of events — as a ratio to the mean of a no-fault
 * run before and one after it. Target ≥ 0.9× whatever the share of dead endpoints.
 */
function isolationScenarioOf(options: { name: string; destinations: number; hung: number }): Scenario {
  const { destinations: DESTINATIONS, hung: HUNG } = options;
  return {
    name: options.name,
    title: `Healthy-destination throughput with ${HUNG} of ${DESTINATIONS} destinations hanging — issues 5, 14`,
    async run(ctx) {
      const events = scaled(ctx, EVENTS);
      const { harness } = ctx;
      const healthy = await harness.call('startReceivers', { count: DESTINATIONS });
      const hanging = await harness.call('startReceivers', { count: HUNG, hang: true });
      const measured = healthy.ids.slice(0, DESTINATIONS - HUNG);
      const apps: BenchApp[] = [];
      const started = async (name: string, urls: string[]) => {
        const app = await startBenchApp(ctx, name);
        apps.push(app);
        const source = await app.source(`bench ${name}`);
        for (const [i, url] of urls.entries()) await app.destination(source.id, url, `destination ${i}`);
        return { app, writeKey: source.writeKey };
      };
      const run = (app: BenchApp, writeKey: string, label: string) =>
        deliverAndWait(ctx, app, {
          writeKey,
          receiverIds: measured,
          events,
          label,
          timeoutMs: RUN_TIMEOUT_MS,
        });
      try {
        // No fault, fault, no fault: the fault run is bracketed, so drift in machine load over the
        // scenario moves both sides of the ratio alike. The fault runs in a second Hookline (own
        // topics and groups), stopped before the second no-fault run, so no leftover of the hanging
        // destination (queued, deferred or retried tasks) weighs on the baseline.
        const ok = await started(options.name, healthy.urls);
        await warmUp(ctx, ok.app, { writeKey: ok.writeKey, receiverIds: healthy.ids, events: 500 });
        ctx.log(`${options.name}: no-fault run 1 (${events} events × ${DESTINATIONS} destinations)`);
        const before = await run(ok.app, ok.writeKey, 'isook');

        const bad = await started(`${options.name}-fault`, [
          ...healthy.urls.slice(0, DESTINATIONS - HUNG),
          ...hanging.urls,
        ]);
        // The warm-up already hangs on the 10th destination: the fault run starts mid-fault. Not
        // before the hang is older than the stall floor: until then Hookline cannot tell a
        // hanging destination from a slow one, queues its tasks, and their events hold the
        // router's in-flight room (the onset, ~0.5 s, which a quick warm-up left inside the run).
        const hangStartedAt = performance.now();
        await warmUp(ctx, bad.app, { writeKey: bad.writeKey, receiverIds: measured, events: 500 });
        await sleep(Math.max(0, hangStartedAt + 2 * STALL_FLOOR_MS - performance.now()));
        ctx.log(
          `${options.name}: fault run (${HUNG} of ${DESTINATIONS} destinations never answer; 5 s timeout)`,
        );
        // Every 100 ms: the run takes about a second.
        const sampler = await sampleStages(bad.app.app.parts.metrics, 100);
        const profiler = ctx.profile ? await startProfiler(ctx.resultsDir) : undefined;
        const fault = await run(bad.app, bad.writeKey, 'isohang');
        if (profiler) await profiler.stop(`${options.name}-fault`);
        const timeline = await sampler.stop();
        const hungStats = await harness.call('receiverStats', { ids: hanging.ids });
        const hungRequests = hungStats.reduce((n, r) => n + r.count, 0);
        // Refusing from now on lets the hanging lanes drain in moments, so the stop is quick.
        for (const id of hanging.ids) await harness.call('closeReceiver', { id });
        await apps.pop()!.stop();

        ctx.log(`${options.name}: no-fault run 2`);
        const after = await run(ok.app, ok.writeKey, 'isook');

        const rate = (r: DeliveryRun) => perSecond(r.delivered * measured.length, r.elapsedMs);
        const baselineRate = (rate(before) + rate(after)) / 2;
        const last = timeline[timeline.length - 1]!;
        const notes = [
          `no-fault runs: ${Math.round(rate(before))} and ${Math.round(rate(after))} deliveries/s; their mean is the baseline`,
          `fault run: the hanging receivers got ${hungRequests} requests since warm-up; Hookline deferred ${last.deferred - timeline[0]!.deferred} tasks to the first delay topic during the run`,
          ...formatStages(timeline),
        ];
        for (const [name, r] of [
          ['first no-fault', before],
          ['fault', fault],
          ['second no-fault', after],
        ] as const) {
          if (!r.complete)
            notes.unshift(
              `INCOMPLETE ${name} run: ${r.delivered} of ${events} delivered to every healthy destination`,
            );
        }
        return {
          figures: [
            {
              label: 'no fault: healthy deliveries',
              value: baselineRate,
              unit: '/s',
              detail: `${measured.length} destinations × ${events} events, mean of 2 runs`,
            },
            {
              label: `${HUNG} hanging: healthy deliveries`,
              value: rate(fault),
              unit: '/s',
              detail: 'same destinations, same events',
            },
            {
              label: 'no fault: Hookline CPU',
              value: (before.appCpuMs * 1_000) / (events * DESTINATIONS),
              unit: 'µs/delivery',
            },
            {
              label: `${HUNG} hanging: Hookline CPU`,
              value: (fault.appCpuMs * 1_000) / (events * (DESTINATIONS - HUNG)),
              unit: 'µs/healthy delivery',
            },
          ],
          checks: [
            check('healthy throughput ÷ no-fault', rate(fault) / baselineRate, '×', 'min', TARGET_RATIO),
          ],
          notes,
        };
      } finally {
        for (const id of hanging.ids) await harness.call('closeReceiver', { id });
        for (const app of apps.reverse()) await app.stop();
      }
    },
  };
}

export const isolationScenario = isolationScenarioOf({ name: 'isolation', destinations: 10, hung: 1 });
export const isolation3of4Scenario = isolationScenarioOf({
  name: 'isolation-3of4',
  destinations: 4,
  hung: 3,
});
export const isolation9of10Scenario = isolationScenarioOf({
  name: 'isolation-9of10',
  destinations: 10,
  hung: 9,
});
