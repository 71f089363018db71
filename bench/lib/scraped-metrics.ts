/** Hookline's own /metrics read over HTTP, for a Hookline in a process of its own (spawned-app.ts). */

/** The Prometheus text of `<baseUrl>/metrics`; '' when it does not answer. */
export async function metricsText(baseUrl: string): Promise<string> {
  try {
    return await (await fetch(`${baseUrl}/metrics`)).text();
  } catch {
    return '';
  }
}

/**
 * The sum of the samples of metric `name` whose labels include every `key="value"` of `labels`;
 * undefined when there is none.
 */
export function metricSum(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  let sum: number | undefined;
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (rest[0] !== ' ' && rest[0] !== '{') continue; // a longer name
    const labelText = rest[0] === '{' ? rest.slice(1, rest.indexOf('}')) : '';
    if (!wanted.every((w) => labelText.split(',').includes(w))) continue;
    sum = (sum ?? 0) + Number(rest.slice(rest.lastIndexOf(' ') + 1));
  }
  return sum;
}

/** Heap used / heap total / external memory (Buffers, typed arrays) in MB, from Hookline's gauges. */
export function heapGauges(text: string): string {
  const mb = (name: string) => {
    const value = metricSum(text, `hookline_nodejs_${name}`);
    return value === undefined ? '?' : (value / 1024 / 1024).toFixed(0);
  };
  return `heap used/total ${mb('heap_size_used_bytes')}/${mb('heap_size_total_bytes')} MB, external ${mb('external_memory_bytes')} MB`;
}

/** Time in V8's garbage collector so far, from `hookline_nodejs_gc_duration_seconds`. */
export function gcSeconds(text: string): {
  minor: number;
  major: number;
  incremental: number;
  scavenges: number;
} {
  const sum = (kind: string) => metricSum(text, 'hookline_nodejs_gc_duration_seconds_sum', { kind }) ?? 0;
  return {
    minor: sum('minor'),
    major: sum('major'),
    incremental: sum('incremental'),
    scavenges: metricSum(text, 'hookline_nodejs_gc_duration_seconds_count', { kind: 'minor' }) ?? 0,
  };
}
