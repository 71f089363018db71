import { costPerDelivered, formatMachineUse, type MachineUse } from '../lib/machine-cpu';
import { deliverAndWait, warmUpToSteadyState } from '../lib/pipeline';
import { scaled, type Figure, type Scenario } from '../lib/scenario';
import { buildDist, startSpawnedApp, type SpawnedApp } from '../lib/spawned-app';
import { perSecond } from '../lib/stats';

const EVENTS = 10_000;
const DELIVERY_TIMEOUT_MS = 120_000;
/** Rounds per mode; the median round (by CPU per event) is shown. */
const ROUNDS = 3;
const MODES = ['true', 'shared'] as const;
/** Enough partitions for the attempts topic to be split between the two replicas. */
const PARTITIONS = '6';

interface Round {
  delivered: number;
  cpuUs: number;
  machine: MachineUse | undefined;
}

/**
 * Two replicas of Hookline (two compiled `start:prod` processes, `HOOKLINE_WORKERS=1` each, every
 * role, one topic prefix: one cluster of two), with HOOKLINE_ATTEMPT_INDEX=true (each reads every
 * attempt record of the cluster) and =shared (each reads the half of the attempts topic its share
 * holds). The tracking calls go to the first; both deliver their share of the events. CPU is both
 * processes'. No target: what the shared index saves each replica, measured, not inferred.
 */
export const replicasScenario: Scenario = {
  name: 'replicas',
  title: 'Two replicas, the attempt index kept whole by each (true) or shared between them',
  async run(ctx) {
    const events = scaled(ctx, EVENTS);
    await buildDist(ctx, 'replicas');
    const {
      ids: [receiverId],
      urls: [url],
    } = await ctx.harness.call('startReceivers', { count: 1 });
    const receiverIds = [receiverId!];
    const figures: Figure[] = [];
    const medians = new Map<string, Round>();
    for (const mode of MODES) {
      const env = { HOOKLINE_ATTEMPT_INDEX: mode, HOOKLINE_TOPIC_PARTITIONS: PARTITIONS };
      const first = await startSpawnedApp(ctx, {
        scenario: `replicas-${mode}`,
        workers: 1,
        built: true,
        env,
      });
      let second: SpawnedApp | undefined;
      try {
        second = await startSpawnedApp(ctx, {
          scenario: `replicas-${mode}`,
          workers: 1,
          built: true,
          prefix: first.prefix,
          env,
        });
        const source = await first.source('bench replicas');
        await first.destination(source.id, url!, 'bench receiver');
        ctx.log(`replicas: HOOKLINE_ATTEMPT_INDEX=${mode}, warming up`);
        const run = { writeKey: source.writeKey, receiverIds, events, timeoutMs: DELIVERY_TIMEOUT_MS };
        await warmUpToSteadyState(ctx, first, run);
        const apps = [first, second];
        const cpuSeconds = () => apps.reduce((s, a) => s + a.cpuSeconds(), 0);
        const rounds: Round[] = [];
        for (let round = 1; round <= ROUNDS; round++) {
          const cost = await costPerDelivered(
            cpuSeconds,
            () => deliverAndWait(ctx, first, { ...run, label: `replicas-${mode}-${round}` }),
            { hooklinePids: apps.map((a) => a.pid) },
          );
          const { delivered, elapsedMs } = cost.run;
          rounds.push({
            delivered: perSecond(delivered, elapsedMs),
            cpuUs: cost.cpuUs,
            machine: cost.machine,
          });
          ctx.log(
            `replicas: ${mode}, round ${round}: ${Math.round(rounds.at(-1)!.delivered)}/s, ${rounds.at(-1)!.cpuUs.toFixed(1)} µs/event`,
          );
        }
        const mid = [...rounds].sort((a, b) => a.cpuUs - b.cpuUs)[ROUNDS >> 1]!;
        medians.set(mode, mid);
        figures.push(
          {
            label: `HOOKLINE_ATTEMPT_INDEX=${mode}: delivered`,
            value: mid.delivered,
            unit: 'events/s',
            detail: `rounds ${rounds.map((r) => Math.round(r.delivered)).join(', ')}`,
          },
          {
            label: `HOOKLINE_ATTEMPT_INDEX=${mode}: CPU`,
            value: mid.cpuUs,
            unit: 'µs/event',
            detail: `both replicas; rounds ${rounds.map((r) => r.cpuUs.toFixed(1)).join(', ')}`,
          },
          {
            label: `HOOKLINE_ATTEMPT_INDEX=${mode}: machine CPU`,
            value: mid.machine?.busyUsPer ?? Number.NaN,
            unit: 'µs/event',
            detail: formatMachineUse(mid.machine),
          },
        );
      } finally {
        await second?.stop({ keepTopics: true });
        await first.stop();
      }
    }
    const whole = medians.get('true')!;
    const shared = medians.get('shared')!;
    figures.push({
      label: 'CPU per event, shared ÷ true',
      value: shared.cpuUs / whole.cpuUs,
      unit: '×',
      detail: 'the median rounds',
    });
    return { figures, checks: [], notes: [] };
  },
};
