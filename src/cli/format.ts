/** Compact, aligned text tables for the CLI's list commands. */

export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

interface DeadLetterRow {
  kind: string;
  id: string;
  destinationId?: string;
  reason: string;
  attempts?: number;
  deadLetteredAt: string;
  redrivenAt?: string;
}

export function deadLetterTable(body: { deadLetters: DeadLetterRow[]; total: number }): string {
  const rows = body.deadLetters.map((d) => [
    d.deadLetteredAt,
    d.kind,
    d.id,
    d.destinationId ?? '-',
    d.reason,
    d.attempts === undefined ? '-' : String(d.attempts),
    d.redrivenAt ?? '-',
  ]);
  const shown = body.total > rows.length ? `\n(${rows.length} of ${body.total}; use --limit for more)` : '';
  return (
    table(['DEAD-LETTERED AT', 'KIND', 'ID', 'DESTINATION', 'REASON', 'ATTEMPTS', 'REDRIVEN AT'], rows) +
    shown
  );
}

interface AttemptRow {
  at: string;
  messageId: string;
  attempt: number;
  outcome: string;
  detail?: string;
  durationMs: number;
  urls: { urlIndex: number; result: string; status?: number }[];
}

export function attemptTable(body: { attempts: AttemptRow[] }): string {
  const rows = body.attempts.map((a) => [
    a.at,
    a.messageId,
    String(a.attempt),
    a.outcome,
    a.detail ?? '-',
    `${a.durationMs}ms`,
    a.urls.map((u) => `#${u.urlIndex}:${u.status ?? u.result}`).join(',') || '-',
  ]);
  return table(['AT', 'MESSAGE', 'ATTEMPT', 'OUTCOME', 'DETAIL', 'DURATION', 'URLS'], rows);
}
