import { startBenchApp, type BenchApp } from '../lib/app';
import { deliverAndWait, warmUpToSteadyState, type DeliveryRun } from '../lib/pipeline';
import { formatSummary, startProfiler } from '../lib/profile';

interface Measured {
  run: DeliveryRun;
  /** Other requests the receiver got for this run (identifies), until the pipeline settled. */
  identifies: number;
  /** Of those, the ones it got before the run's last event (they competed with the run). */
  duringRun: number;
}
import { check, scaled, type BenchContext, type Scenario } from '../lib/scenario';
import { perSecond } from '../lib/stats';
import { pollUntil } from '../lib/wait';

const EVENTS = 10_000;
const TARGET_RATIO = 0.8;
const DELIVERY_TIMEOUT_MS = 120_000;
/** Creation reads each partition's history once per computation: slow on a loaded machine. */
const LIVE_TIMEOUT_MS = 180_000;
/** The default evaluation interval (30 s) and then some. */
const EVALUATED_TIMEOUT_MS = 90_000;

/** Ten rule audiences over the bench's workload (`Order Completed` tracks of 1,000 users). */
export const BENCH_AUDIENCES: { name: string; rule: unknown }[] = [
  { name: 'Buyers', rule: { event: { name: 'Order Completed' } } },
  { name: 'Weekly Buyers', rule: { event: { name: 'Order Completed', atLeast: 3, withinDays: 7 } } },
  { name: 'Busy Today', rule: { event: { name: 'Order Completed', atLeast: 20, withinHours: 24 } } },
  { name: 'Few Orders', rule: { event: { name: 'Order Completed', atMost: 2, withinDays: 30 } } },
  {
    name: 'Euro Buyers',
    rule: { event: { name: 'Order Completed', atLeast: 2, where: { currency: 'EUR' } } },
  },
  {
    name: 'Big Baskets',
    rule: { event: { name: 'Order Completed', atLeast: 1, where: { revenue: { gte: 40 } } } },
  },
  { name: 'Pro Plan', rule: { trait: { name: 'plan', equals: 'pro' } } },
  {
    name: 'Pro Buyers',
    rule: { all: [{ trait: { name: 'plan', exists: true } }, { event: { name: 'Order Completed' } }] },
  },
  {
    name: 'Spring Or Pro',
    rule: {
      any: [
        { event: { name: 'Order Completed', where: { coupon: 'SPRING' } } },
        { trait: { name: 'plan', in: ['pro', 'team'] } },
      ],
    },
  },
  { name: 'Not Refunded', rule: { not: { event: { name: 'Order Refunded' } } } },
];

/** Five computed traits over the same workload. */
export const BENCH_COMPUTED_TRAITS: { name: string; compute: unknown }[] = [
  { name: 'Orders 30d', compute: { count: { event: 'Order Completed', withinDays: 30 } } },
  { name: 'Revenue', compute: { sum: { event: 'Order Completed', property: 'revenue' } } },
  { name: 'Last Order', compute: { last: { event: 'Order Completed', property: 'orderId' } } },
  { name: 'First Currency', compute: { first: { event: 'Order Completed', property: 'currency' } } },
  { name: 'Plan', compute: { lastTrait: 'plan' } },
];

/**
 * Issue 15: the whole pipeline (tracking API → … → webhook receiver, every role in this process,
 * the audience processor included) with 10 rule audiences and 5 computed traits defined on the
 * source, against the same run without them, before and after (their mean is the baseline). With
 * them, the processor keeps per-user state and announces changes as identify calls, which are
 * routed and delivered too (the receiver counts only the run's own events).
 */
export const audiencesScenario: Scenario = {
  name: 'audiences',
  title: 'End to end with 10 audiences and 5 computed traits vs without — issue 15',
  async run(ctx) {
    const events = scaled(ctx, EVENTS);
    const app = await startBenchApp(ctx, 'audiences');
    try {
      const {
        ids: [receiverId],
        urls: [url],
      } = await ctx.harness.call('startReceivers', { count: 1 });
      const receiverIds = [receiverId!];
      const source = await app.source('bench audiences');
      await app.destination(source.id, url!, 'bench receiver');
      await warmUpToSteadyState(ctx, app, {
        writeKey: source.writeKey,
        receiverIds,
        events,
        timeoutMs: DELIVERY_TIMEOUT_MS,
      });
      const options = { writeKey: source.writeKey, receiverIds, events, timeoutMs: DELIVERY_TIMEOUT_MS };

      // Each run is followed by a settle: the identifies it caused are delivered before the next
      // run starts, so that one run's announcements are not counted against the next. With them,
      // the settle starts once the processor has evaluated the run's events (its evaluation
      // interval, HOOKLINE_AUDIENCE_EVALUATE_INTERVAL, may end after the run).
      // --profile: the run with them (until its identifies are delivered) is profiled.
      const profiles: string[] = [];
      const measure = async (label: string) => {
        const profiler =
          ctx.profile && label === 'audiences' ? await startProfiler(ctx.resultsDir) : undefined;
        const run = await deliverAndWait(ctx, app, { ...options, label });
        const duringRun = await ignored(ctx, receiverIds);
        if (label === 'audiences') await evaluated(ctx, app);
        const identifies = await settle(ctx, receiverIds);
        if (profiler)
          profiles.push(...formatSummary('Hookline, all roles, with them', await profiler.stop('audiences')));
        return { run, identifies, duringRun };
      };
      const before = await measure('plain');
      const ids = await defineComputations(ctx, app, source.id);
      const withThem = await measure('audiences');
      for (const id of ids) await app.admin('DELETE', id);
      const after = await measure('plain');

      const rate = ({ run }: Measured) => perSecond(run.delivered, run.elapsedMs);
      const cpu = ({ run }: Measured) => (run.appCpuMs * 1_000) / Math.max(1, run.delivered);
      const detail = (m: Measured) =>
        `${cpu(m).toFixed(0)} µs CPU/event; ${m.identifies} identifies announced and delivered besides (${m.duringRun} by the run's end)`;
      const baseline = (rate(before) + rate(after)) / 2;
      const notes = [before, withThem, after]
        .filter(({ run }) => !run.complete)
        .map(({ run }) => `INCOMPLETE: ${run.delivered} of ${events} delivered (${run.runId})`);
      notes.push(...profiles);
      notes.push(
        'with them, every track changes several computed traits (count, sum, last) of its user: each change is an identify delivered to the same destination, so the receiver gets several requests per event',
        'a user is announced at most once per computation per evaluation interval (HOOKLINE_AUDIENCE_EVALUATE_INTERVAL, 30 s by default): identifies announced after the run did not compete with it',
      );
      ctx.log(`audiences: ${Math.round(rate(withThem))}/s with them, ${Math.round(baseline)}/s without`);
      return {
        figures: [
          { label: 'without (before)', value: rate(before), unit: 'events/s', detail: detail(before) },
          {
            label: 'with 10 audiences + 5 computed traits',
            value: rate(withThem),
            unit: 'events/s',
            detail: detail(withThem),
          },
          {
            label: 'without (after deleting them)',
            value: rate(after),
            unit: 'events/s',
            detail: detail(after),
          },
          {
            label: 'with: deliveries (events + identifies)',
            value: perSecond(withThem.run.delivered + withThem.identifies, withThem.run.elapsedMs),
            unit: '/s',
            detail: 'identifies counted until the pipeline settled, so an upper bound',
          },
        ],
        checks: [check('with ÷ without, delivered/s', rate(withThem) / baseline, '×', 'min', TARGET_RATIO)],
        notes,
      };
    } finally {
      await app.stop();
    }
  },
};

/** Creates the audiences and computed traits and waits until every one is live; their admin paths. */
async function defineComputations(ctx: BenchContext, app: BenchApp, sourceId: string): Promise<string[]> {
  const paths: string[] = [];
  const create = async (collection: string, body: Record<string, unknown>) => {
    const res = await app.admin<{ id: string }>('POST', `/api/v1/${collection}`, { sourceId, ...body });
    if (res.status !== 201)
      throw new Error(`creating ${collection} failed: ${res.status} ${JSON.stringify(res.body)}`);
    paths.push(`/api/v1/${collection}/${res.body.id}`);
  };
  for (const audience of BENCH_AUDIENCES) await create('audiences', audience);
  for (const trait of BENCH_COMPUTED_TRAITS) await create('computed-traits', trait);
  const live = await pollUntil(
    async () => {
      for (const path of paths) {
        const res = await app.admin<{ state?: string }>('GET', path);
        if (res.body.state !== 'live') return undefined;
      }
      return true;
    },
    { timeoutMs: LIVE_TIMEOUT_MS, intervalMs: 200 },
  );
  if (!live) throw new Error(`the computations were not live within ${LIVE_TIMEOUT_MS / 1_000} s`);
  ctx.log(`audiences: ${paths.length} computations live`);
  return paths;
}

/** Requests the receivers got that are not the run's events (identifies). */
async function ignored(ctx: BenchContext, receiverIds: number[]): Promise<number> {
  return (await ctx.harness.call('receiverStats', { ids: receiverIds })).reduce((n, s) => n + s.ignored, 0);
}

/** Waits until the audience processor has evaluated and committed every event now on hookline.events. */
async function evaluated(ctx: BenchContext, app: BenchApp): Promise<void> {
  const { admin, topics, config } = app.app.parts;
  const highs = await admin.fetchTopicOffsets(topics.events);
  const done = await pollUntil(
    async () => {
      const [committed] = await admin.fetchOffsets({
        groupId: `${config.topics.prefix}.audiences`,
        topics: [topics.events],
      });
      const at = (p: number) => BigInt(committed?.partitions.find((c) => c.partition === p)?.offset ?? -1);
      // A partition may end with the commit marker of the processor's own transaction, which a
      // consumer never reads past: one short of the high watermark is the end there.
      return highs.every((h) => at(h.partition) >= BigInt(h.high) - 1n) ? true : undefined;
    },
    { timeoutMs: EVALUATED_TIMEOUT_MS, intervalMs: 250 },
  );
  if (!done)
    ctx.log(`audiences: the processor did not evaluate the run within ${EVALUATED_TIMEOUT_MS / 1_000} s`);
}

/** Waits until the receiver has had no request for 2 s (at most 60 s); the run's other requests. */
async function settle(ctx: BenchContext, receiverIds: number[]): Promise<number> {
  let last = -1;
  let stableSince = 0;
  const settled = await pollUntil(
    async () => {
      const now = await ignored(ctx, receiverIds);
      if (now !== last) {
        last = now;
        stableSince = Date.now();
        return undefined;
      }
      return Date.now() - stableSince >= 2_000 ? now : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );
  if (settled === undefined) ctx.log('audiences: the pipeline did not settle within 60 s');
  return settled ?? (await ignored(ctx, receiverIds));
}
