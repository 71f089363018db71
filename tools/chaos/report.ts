import type { ChaosResult } from './scenario';

const percent = (share: number) => `${(share * 100).toFixed(2)}%`;
const seconds = (ms: number) => `${(ms / 1_000).toFixed(0)} s`;

/** One line: what was sent, the faults, lost and duplicates, and how long it took. */
export function summaryLine(result: ChaosResult): string {
  const { ledger, faults, timingsMs } = result;
  return [
    `chaos: ${result.accepted} events accepted (${result.rejected.length} not)`,
    `${faults.workerKills} worker SIGKILLs, ${faults.brokerKills} broker kill -9s`,
    `lost ${ledger.lost}`,
    `duplicates ${ledger.duplicates} of ${ledger.deliveries} deliveries (${percent(ledger.duplicateShare)})`,
    `${result.unexpectedExits.length} unexpected process exits`,
    `${seconds(timingsMs.total)} (set-up ${seconds(timingsMs.setUp)}, load ${seconds(timingsMs.load)}, settle ${seconds(timingsMs.settle)})`,
  ].join('; ');
}

/** Per destination: requests received, events delivered, duplicates, dead letters by reason, lost. */
export function formatTable(result: ChaosResult): string {
  const header = [
    'destination',
    'kind',
    'requests',
    'delivered',
    'deliveries',
    'duplicates',
    'dup %',
    'dead-lettered',
    'lost',
  ];
  const rows = result.ledger.destinations.map((d) => {
    const requests = result.requests.find((r) => r.name === d.name)?.requests ?? 0;
    const dead = Object.entries(d.deadLettered)
      .map(([reason, n]) => `${reason} ${n}`)
      .join(', ');
    return [
      d.name,
      d.kind,
      String(requests),
      String(d.delivered),
      String(d.deliveries),
      String(d.duplicates),
      d.deliveries === 0 ? '-' : percent(d.duplicates / d.deliveries),
      dead || '-',
      String(d.lost),
    ];
  });
  const { ledger } = result;
  rows.push([
    'all',
    '',
    '',
    '',
    String(ledger.deliveries),
    String(ledger.duplicates),
    percent(ledger.duplicateShare),
    '',
    String(ledger.lost),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/**
 * The tasks routed more than once, per destination that got any: each such copy is delivered
 * again, so that many of the destination's duplicates come from routing, not from the workers.
 */
export function taskCopiesLine(result: Pick<ChaosResult, 'taskCopies'>): string {
  const copies = result.taskCopies.filter((c) => c.extra > 0);
  const total = copies.reduce((n, c) => n + c.extra, 0);
  const each = copies.map((c) => `${c.name} ${c.extra}`).join(', ');
  return `tasks routed more than once (extra copies on the deliveries topic): ${total}${each ? ` (${each})` : ''}`;
}
