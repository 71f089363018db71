/**
 * The one /metrics of HOOKLINE_WORKERS > 1, kept by the primary: the latest snapshot each child
 * gave (`getMetricsAsJSON()` of its registry), plus what children that exited had counted.
 *
 * prom-client's `AggregatorRegistry.clusterMetrics()` sums whatever the children alive at that
 * moment answer. A child that exits takes its counters with it, so the counters of all processes went
 * backwards at every restart (Prometheus reads that as a reset, and `rate()` then counts the
 * survivors' whole totals again as new increments); and a child still starting, not answering
 * yet, made every scrape fail for 5 s. Here a child's counters and histograms, as last reported,
 * are kept once it exits ("retired") and added to the live children's, so a counter of all
 * processes only ever grows while the primary runs; its gauges (memory, in-flight, lag) describe a
 * process that no longer exists and are dropped. A child that does not answer a scrape in time
 * counts with its previous snapshot.
 */
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue } from 'prom-client';

export type MetricsSnapshot = MetricObjectWithValues<MetricValue<string>>[];

/** Metric types whose values only grow within a process: kept after the process exits. */
const CUMULATIVE_TYPES: ReadonlySet<string> = new Set(['counter', 'histogram']);

export class ChildMetricsLedger {
  private readonly latest = new Map<number, MetricsSnapshot>();
  private readonly exited = new Set<number>();
  private retired: MetricsSnapshot = [];
  /** Retirements are folded one after another; `text()` waits for them. */
  private folding: Promise<void> = Promise.resolve();

  /** A child's metrics as it answers now (ignored once it has exited: a late answer). */
  report(childId: number, snapshot: MetricsSnapshot): void {
    if (!this.exited.has(childId)) this.latest.set(childId, snapshot);
  }

  /** A child exited: its counters and histograms, as last reported, stay in the totals. */
  retire(childId: number): Promise<void> {
    this.exited.add(childId);
    const snapshot = this.latest.get(childId);
    if (!snapshot) return this.folding;
    const cumulative = snapshot.filter((m) => CUMULATIVE_TYPES.has(String(m.type)));
    this.folding = this.folding.then(async () => {
      const folded = AggregatorRegistry.aggregate([this.retired, cumulative]);
      this.retired = (await folded.getMetricsAsJSON()) as MetricsSnapshot;
      // Removed only now, so that no text() in between lacks the child's counters.
      this.latest.delete(childId);
    });
    return this.folding;
  }

  /** The Prometheus text of every child's latest snapshot and the retired children's counters. */
  async text(): Promise<string> {
    await this.folding;
    const snapshots = [...this.latest.values()];
    if (this.retired.length > 0) snapshots.push(this.retired);
    return AggregatorRegistry.aggregate(snapshots).metrics();
  }
}
