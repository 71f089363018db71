/**
 * Where the chaos run's duplicates come from, as a pure function. A duplicate is a repeat 2xx
 * delivery of an event to a destination that had already answered 2xx for it. It is laid at the
 * door of the kills (worker SIGKILL, broker kill -9) between the delivery before it and the
 * repeat, its *chain*, which begins with the broker kill when that delivery was made while the
 * broker was away: the first of them found the work not yet recorded (neither its offset committed nor
 * its delivered attempt record on Kafka), the later ones are why it stayed so or why the
 * partition's next owner did not find the record. A killed worker's requests still on the wire,
 * or a worker that delivers while the broker is away and is killed before the broker is back,
 * leave nothing on Kafka to say the work was done: such duplicates are the price of at-least-once
 * delivery. How long before the chain's first kill the earlier delivery happened (its "age at the
 * fault") tells how far the records lagged behind the work: the commit delay and the commit
 * request's own time normally (records still in flight are holes of the commit, see
 * src/kafka/commit-holes.ts), more when something held them back: a hand-off waiting for Kafka,
 * commits refused while the broker was away or after the member's group membership expired.
 */

export interface Delivery {
  messageId: string;
  atMs: number;
}

export interface Fault {
  atMs: number;
  what: string;
}

/** The duplicates of one chain of kills, or of none (`what: 'no fault between'`). */
export interface FaultDuplicates {
  /** The kills of the chain, first to last, joined by " → ". */
  what: string;
  /** When the chain's first kill was. */
  atMs: number | undefined;
  /** The chain: the kills between the earlier delivery and the repeat, first to last (chainBetween). */
  chain: Fault[];
  duplicates: number;
  /** Age of the earlier delivery at the chain's first kill: median, p90 and max (ms); absent without a fault. */
  ageMs?: { p50: number; p90: number; max: number };
  /**
   * Without a fault: how long after the earlier delivery the repeat came (median, p90, max; ms) and
   * when the earlier deliveries were (earliest and latest). A gap of a retry delay points at an answer
   * the worker did not take as a success; earlier deliveries bunched at a rebalance point at it.
   */
  gapMs?: { p50: number; p90: number; max: number };
  firstAtMs?: { min: number; max: number };
}

/**
 * A kill is recorded when the signal is sent; a request the killed process had already written
 * reaches its receiver a moment later. First deliveries up to this long after a kill count as made
 * before it (their age at the fault is 0).
 */
export const KILL_LANDING_MS = 100;

/** Age buckets (ms) the run's duplicates fall in: ≤ 0.5 s, ≤ 1 s, ≤ 3 s, ≤ 6 s, more. */
export const AGE_BUCKETS_MS = [500, 1_000, 3_000, 6_000, Infinity] as const;

export interface DuplicateCauses {
  byFault: FaultDuplicates[];
  /** How many duplicates fall in each of AGE_BUCKETS_MS. */
  byAge: number[];
}

export function duplicateCauses(
  deliveries: readonly Delivery[][],
  faults: readonly Fault[],
): DuplicateCauses {
  const sorted = [...faults].sort((a, b) => a.atMs - b.atMs);
  const kills = sorted.filter((f) => KILL.test(f.what));
  const outages = brokerOutages(sorted);
  const groups = new Map<string, { chain: Fault[]; ages: number[] }>();
  const unexplained: { firstAtMs: number; gapMs: number }[] = [];
  const byAge = AGE_BUCKETS_MS.map(() => 0);
  for (const destination of deliveries) {
    // The delivery before each repeat: a third delivery is laid at what came after the second.
    const previous = new Map<string, number>();
    for (const d of [...destination].sort((a, b) => a.atMs - b.atMs)) {
      const earlierAtMs = previous.get(d.messageId);
      previous.set(d.messageId, d.atMs);
      if (earlierAtMs === undefined) continue;
      const chain = chainBetween(kills, outages, earlierAtMs, d.atMs);
      const key = chain.map((f) => `${f.atMs} ${f.what}`).join('\n');
      if (chain.length === 0) unexplained.push({ firstAtMs: earlierAtMs, gapMs: d.atMs - earlierAtMs });
      let group = groups.get(key);
      if (!group) groups.set(key, (group = { chain, ages: [] }));
      const ageMs = chain.length > 0 ? Math.max(0, chain[0]!.atMs - earlierAtMs) : 0;
      group.ages.push(ageMs);
      if (chain.length > 0) byAge[AGE_BUCKETS_MS.findIndex((limit) => ageMs <= limit)]!++;
    }
  }
  const byFault: FaultDuplicates[] = [...groups.values()].map(({ chain, ages }) =>
    chain.length > 0
      ? {
          what: chain.map((f) => f.what).join(' → '),
          atMs: chain[0]!.atMs,
          chain,
          duplicates: ages.length,
          ageMs: spread(ages),
        }
      : {
          what: 'no fault between',
          atMs: undefined,
          chain,
          duplicates: ages.length,
          gapMs: spread(unexplained.map((u) => u.gapMs)),
          firstAtMs: {
            min: Math.min(...unexplained.map((u) => u.firstAtMs)),
            max: Math.max(...unexplained.map((u) => u.firstAtMs)),
          },
        },
  );
  byFault.sort((a, b) => (a.atMs ?? Infinity) - (b.atMs ?? Infinity) || a.chain.length - b.chain.length);
  return { byFault, byAge };
}

const KILL = /SIGKILL|kill -9/;
const BROKER_KILL = /kill -9/;
const BROKER_BACK = /broker restarted/;

/** Each broker kill with the time the broker was back (Infinity when the run never says so). */
function brokerOutages(sorted: readonly Fault[]): { kill: Fault; backAtMs: number }[] {
  return sorted
    .filter((f) => BROKER_KILL.test(f.what))
    .map((kill) => ({
      kill,
      backAtMs: sorted.find((f) => f.atMs >= kill.atMs && BROKER_BACK.test(f.what))?.atMs ?? Infinity,
    }));
}

/**
 * The repeat's chain, in order: the kills from just before the earlier delivery (KILL_LANDING_MS)
 * up to the repeat, and a broker kill whose outage the earlier delivery fell in (work done while
 * the broker was away could not be recorded until it was back).
 */
function chainBetween(
  kills: readonly Fault[],
  outages: readonly { kill: Fault; backAtMs: number }[],
  earlierAtMs: number,
  repeatAtMs: number,
): Fault[] {
  const during = outages
    .filter((o) => o.kill.atMs < earlierAtMs - KILL_LANDING_MS && o.backAtMs >= earlierAtMs)
    .map((o) => o.kill);
  const after = kills.filter((f) => f.atMs >= earlierAtMs - KILL_LANDING_MS && f.atMs <= repeatAtMs);
  return [...during, ...after];
}

function spread(values: number[]): { p50: number; p90: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: at(sorted, 0.5), p90: at(sorted, 0.9), max: sorted[sorted.length - 1]! };
}

function at(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** A few lines for the report: duplicates per fault with the ages, then by age bucket. */
export function formatDuplicateCauses(causes: DuplicateCauses, startedMs: number): string {
  const lines = causes.byFault.map((f) => {
    const when = f.chain.map((k) => `${((k.atMs - startedMs) / 1_000).toFixed(1)} s ${k.what}`).join(' → ');
    const ages = f.ageMs
      ? ` (earlier delivery before the first kill: p50 ${f.ageMs.p50} ms, p90 ${f.ageMs.p90} ms, max ${f.ageMs.max} ms)`
      : f.gapMs && f.firstAtMs
        ? ` (repeat after the earlier delivery: p50 ${f.gapMs.p50} ms, p90 ${f.gapMs.p90} ms, max ${f.gapMs.max} ms; earlier deliveries ${((f.firstAtMs.min - startedMs) / 1_000).toFixed(1)}–${((f.firstAtMs.max - startedMs) / 1_000).toFixed(1)} s)`
        : '';
    return `  ${when || f.what}: ${f.duplicates} duplicates${ages}`;
  });
  const labels = AGE_BUCKETS_MS.map((limit, i) =>
    limit === Infinity ? `> ${AGE_BUCKETS_MS[i - 1]} ms` : `≤ ${limit} ms`,
  );
  const buckets = causes.byAge.map((n, i) => `${labels[i]}: ${n}`).join(', ');
  return [
    'duplicates by the kills between the earlier delivery and the repeat:',
    ...lines,
    `duplicates by age of the work at the first kill: ${buckets}`,
  ].join('\n');
}
