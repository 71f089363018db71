import { startBenchApp, type BenchApp } from '../lib/app';
import { formatStages, sampleStages } from '../lib/app-metrics';
import { deliverAndWait, warmUp, type DeliveryRun } from '../lib/pipeline';
import { check, scaled, type Scenario } from '../lib/scenario';
import { perSecond } from '../lib/stats';

/** Events per run; each goes to all 10 destinations of its source. */
const EVENTS = 2_000;
const DESTINATIONS = 10;
const TARGET_RATIO = 0.9;
const RUN_TIMEOUT_MS = 120_000;

/**
 * Issue 5, isolation: one source with 10 destinations; in the fault run one of them never
 * answers (its receiver reads the request and stays silent, so each attempt waits out the real
 * 5 s timeout). Healthy-destination throughput — deliveries/s to the 9 destinations that are
 * healthy in every run, over the same number of events — as a ratio to the mean of a no-fault
 * run before and one after it.
 */
export const isolationScenario: Scenario = {
  name: 'isolation',
  title: 'Healthy-destination throughput with 1 of 10 destinations hanging — issue 5',
  async run(ctx) {
    const events = scaled(ctx, EVENTS);
    const { harness } = ctx;
    const healthy = await harness.call('startReceivers', { count: DESTINATIONS });
    const hanging = await harness.call('startReceivers', { count: 1, hang: true });
    const measured = healthy.ids.slice(0, DESTINATIONS - 1);
    const apps: BenchApp[] = [];
    const started = async (name: string, urls: string[]) => {
      const app = await startBenchApp(ctx, name);
      apps.push(app);
      const source = await app.source(`bench ${name}`);
      for (const [i, url] of urls.entries()) await app.destination(source.id, url, `destination ${i}`);
      return { app, writeKey: source.writeKey };
    };
    const run = (app: BenchApp, writeKey: string, label: string) =>
      deliverAndWait(ctx, app, { writeKey, receiverIds: measured, events, label, timeoutMs: RUN_TIMEOUT_MS });
    try {
      // No fault, fault, no fault: the fault run is bracketed, so drift in machine load over the
      // scenario moves both sides of the ratio alike. The fault runs in a second Hookline (own
      // topics and groups), stopped before the second no-fault run, so no leftover of the hanging
      // destination (queued, deferred or retried tasks) weighs on the baseline.
      const ok = await started('isolation', healthy.urls);
      await warmUp(ctx, ok.app, { writeKey: ok.writeKey, receiverIds: healthy.ids, events: 500 });
      ctx.log(`isolation: no-fault run 1 (${events} events × ${DESTINATIONS} destinations)`);
      const before = await run(ok.app, ok.writeKey, 'isook');

      const bad = await started('isolation-fault', [
        ...healthy.urls.slice(0, DESTINATIONS - 1),
        hanging.urls[0]!,
      ]);
      // The warm-up already hangs on the 10th destination: the fault run starts mid-fault.
      await warmUp(ctx, bad.app, { writeKey: bad.writeKey, receiverIds: measured, events: 500 });
      ctx.log(`isolation: fault run (destination ${DESTINATIONS} never answers; 5 s timeout)`);
      const sampler = await sampleStages(bad.app.app.parts.metrics);
      const fault = await run(bad.app, bad.writeKey, 'isohang');
      const timeline = await sampler.stop();
      const [hung] = await harness.call('receiverStats', { ids: hanging.ids });
      // Refusing from now on lets the hanging lane drain in moments, so the stop is quick.
      await harness.call('closeReceiver', { id: hanging.ids[0]! });
      await apps.pop()!.stop();

      ctx.log('isolation: no-fault run 2');
      const after = await run(ok.app, ok.writeKey, 'isook');

      const rate = (r: DeliveryRun) => perSecond(r.delivered * measured.length, r.elapsedMs);
      const baselineRate = (rate(before) + rate(after)) / 2;
      const last = timeline[timeline.length - 1]!;
      const notes = [
        `no-fault runs: ${Math.round(rate(before))} and ${Math.round(rate(after))} deliveries/s; their mean is the baseline`,
        `fault run: the hanging receiver got ${hung!.count} requests since warm-up; Hookline deferred ${last.deferred - timeline[0]!.deferred} tasks to the first delay topic during the run`,
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
            label: 'one hanging: healthy deliveries',
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
            label: 'one hanging: Hookline CPU',
            value: (fault.appCpuMs * 1_000) / (events * (DESTINATIONS - 1)),
            unit: 'µs/healthy delivery',
          },
        ],
        checks: [
          check('healthy throughput ÷ no-fault', rate(fault) / baselineRate, '×', 'min', TARGET_RATIO),
        ],
        notes,
      };
    } finally {
      await harness.call('closeReceiver', { id: hanging.ids[0]! });
      for (const app of apps.reverse()) await app.stop();
    }
  },
};
