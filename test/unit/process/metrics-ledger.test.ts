import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { ChildMetricsLedger, type MetricsSnapshot } from '../../../src/process/metrics-ledger';
import { linkToPrimary } from '../../../src/process/child';
import { recordProcessSend } from '../../support/process-send';

/** One child's registry: a counter, a histogram and a gauge, as a child of the group has. */
function child(delivered: number, inFlight: number) {
  const registry = new Registry();
  new Counter({ name: 'hookline_deliveries_total', help: 'd', registers: [registry] }).inc(delivered);
  new Gauge({ name: 'hookline_delivery_in_flight', help: 'f', registers: [registry] }).set(inFlight);
  const latency = new Histogram({
    name: 'hookline_delivery_latency_seconds',
    help: 'l',
    buckets: [1],
    registers: [registry],
  });
  for (let i = 0; i < delivered; i++) latency.observe(0.5);
  return async () => (await registry.getMetricsAsJSON()) as MetricsSnapshot;
}

const value = (text: string, series: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
};

describe('the group /metrics across child restarts', () => {
  it('keeps a counter growing when a child exits and is restarted', async () => {
    const ledger = new ChildMetricsLedger();
    ledger.report(1, await child(5, 2)());
    ledger.report(2, await child(3, 4)());
    const before = await ledger.text();
    expect(value(before, 'hookline_deliveries_total')).toBe(8);
    expect(value(before, 'hookline_delivery_in_flight')).toBe(6);

    // Child 1 crashes; child 3 replaces it and has delivered 1 so far.
    await ledger.retire(1);
    ledger.report(3, await child(1, 1)());
    const after = await ledger.text();
    expect(value(after, 'hookline_deliveries_total')).toBe(9); // 5 (child 1, retired) + 3 + 1, not 4
    expect(value(after, 'hookline_delivery_latency_seconds_count')).toBe(9);
    expect(value(after, 'hookline_delivery_latency_seconds_bucket{le="1"}')).toBe(9);
    // A gauge of a process that no longer exists is not part of the group's.
    expect(value(after, 'hookline_delivery_in_flight')).toBe(5);

    // A second crash adds to what the first left.
    await ledger.retire(3);
    await ledger.retire(2);
    expect(value(await ledger.text(), 'hookline_deliveries_total')).toBe(9);
  });

  it('ignores a late answer of a child that has exited', async () => {
    const ledger = new ChildMetricsLedger();
    ledger.report(1, await child(5, 2)());
    await ledger.retire(1);
    ledger.report(1, await child(6, 2)());
    const text = await ledger.text();
    expect(value(text, 'hookline_deliveries_total')).toBe(5);
    expect(value(text, 'hookline_delivery_in_flight')).toBeUndefined();
  });
});

describe('a child asked for its metrics', () => {
  const sent = recordProcessSend();

  it('answers with its own registry, the newest one after a start-up tried again', async () => {
    const first = new Registry();
    new Counter({ name: 'hookline_first_total', help: 'a', registers: [first] });
    linkToPrimary(first);
    const second = new Registry();
    new Counter({ name: 'hookline_second_total', help: 'b', registers: [second] }).inc(2);
    linkToPrimary(second);

    process.emit('message', { type: 'hookline:metrics-snapshot', id: 's-1' }, undefined);
    const deadline = Date.now() + 2_000;
    while (sent.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));

    expect(sent).toHaveLength(1); // one answer, not one per start-up
    const answer = sent[0] as { type: string; id: string; metrics: MetricsSnapshot };
    expect(answer).toMatchObject({ type: 'hookline:metrics-snapshot', id: 's-1' });
    expect(answer.metrics.map((m) => m.name)).toEqual(['hookline_second_total']);
  });
});
