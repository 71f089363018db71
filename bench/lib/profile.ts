import { promises as fs } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';

/**
 * CPU profiles of the bench process (where Hookline runs) over exactly a measured phase, through
 * the inspector: the same data as `node --cpu-prof`, without the set-up and tear-down around it.
 * The .cpuprofile opens in Chrome DevTools (Performance → Load profile) or speedscope. Beside it,
 * a sampled allocation profile of the same phase (.heapprofile, DevTools → Memory): what was
 * allocated and where, whether or not it was collected since, which is what garbage collection
 * pays for.
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
}

export interface ProfileSummary {
  file: string;
  totalMs: number;
  /** The allocation profile: bytes allocated in the phase, and the functions allocating most. */
  allocations: { file: string; totalBytes: number; functions: { fn: string; bytes: number }[] };
  /** Time by area (a package, a Hookline folder, Node internals), inclusive: callees count. */
  areas: { area: string; inclusivePct: number; selfPct: number }[];
  /** Functions by self time. */
  functions: { fn: string; selfPct: number; inclusivePct: number }[];
}

export interface Profiler {
  stop(name: string): Promise<ProfileSummary>;
}

interface HeapProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: HeapProfileNode[];
}

interface HeapProfile {
  head: HeapProfileNode;
  samples: { size: number; nodeId: number }[];
}

/** One allocation sample per this many bytes on average (V8's default is 32 KiB). */
const HEAP_SAMPLING_INTERVAL_BYTES = 16 * 1024;

export async function startProfiler(resultsDir: string): Promise<Profiler> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  await session.post('HeapProfiler.enable');
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: HEAP_SAMPLING_INTERVAL_BYTES,
    // Everything allocated, not only what is still alive at the end.
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  return {
    async stop(name) {
      const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: CpuProfile };
      const { profile: heap } = (await session.post('HeapProfiler.stopSampling')) as unknown as {
        profile: HeapProfile;
      };
      session.disconnect();
      const file = path.join(resultsDir, `${name}.cpuprofile`);
      const heapFile = path.join(resultsDir, `${name}.heapprofile`);
      await fs.mkdir(resultsDir, { recursive: true });
      await fs.writeFile(file, JSON.stringify(profile));
      await fs.writeFile(heapFile, JSON.stringify(heap));
      return { ...summarise(profile, file), allocations: summariseAllocations(heap, heapFile) };
    },
  };
}

/** Bytes allocated per function (self), from the sampled allocation profile. */
export function summariseAllocations(profile: HeapProfile, file: string): ProfileSummary['allocations'] {
  const bytesByNode = new Map<number, number>();
  for (const s of profile.samples) bytesByNode.set(s.nodeId, (bytesByNode.get(s.nodeId) ?? 0) + s.size);
  const byFn = new Map<string, number>();
  let totalBytes = 0;
  const walk = (node: HeapProfileNode) => {
    const bytes = bytesByNode.get(node.id) ?? 0;
    totalBytes += bytes;
    if (bytes > 0) add(byFn, fnKey(node), bytes);
    for (const child of node.children ?? []) walk(child);
  };
  walk(profile.head);
  return {
    file,
    totalBytes,
    functions: [...byFn.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 20)
      .map(([fn, bytes]) => ({ fn, bytes })),
  };
}

/** Self and inclusive time per area and per function, as shares of all samples. */
export function summarise(profile: CpuProfile, file: string): Omit<ProfileSummary, 'allocations'> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const hits = new Map<number, number>();
  if (profile.samples) for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  else for (const n of profile.nodes) hits.set(n.id, n.hitCount ?? 0);
  const total = [...hits.values()].reduce((a, b) => a + b, 0) || 1;

  const areaSelf = new Map<string, number>();
  const areaIncl = new Map<string, number>();
  const fnSelf = new Map<string, number>();
  const fnIncl = new Map<string, number>();
  for (const [id, count] of hits) {
    const leaf = byId.get(id)!;
    add(areaSelf, areaOf(leaf), count);
    add(fnSelf, fnKey(leaf), count);
    const areas = new Set<string>();
    const fns = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const node = byId.get(cur)!;
      areas.add(areaOf(node));
      fns.add(fnKey(node));
    }
    for (const a of areas) add(areaIncl, a, count);
    for (const f of fns) add(fnIncl, f, count);
  }
  const pct = (n: number | undefined) => Math.round(((n ?? 0) * 1_000) / total) / 10;
  return {
    file,
    totalMs: (profile.endTime - profile.startTime) / 1_000,
    areas: [...areaIncl.keys()]
      .filter((a) => a !== '(root)')
      .map((area) => ({ area, inclusivePct: pct(areaIncl.get(area)), selfPct: pct(areaSelf.get(area)) }))
      .sort((a, b) => b.selfPct - a.selfPct)
      .slice(0, 14),
    functions: [...fnSelf.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 20)
      .map(([fn, n]) => ({ fn, selfPct: pct(n), inclusivePct: pct(fnIncl.get(fn)) })),
  };
}

function add(map: Map<string, number>, key: string, n: number): void {
  map.set(key, (map.get(key) ?? 0) + n);
}

function fnKey(node: Pick<ProfileNode, 'callFrame'>): string {
  const { functionName, url, lineNumber } = node.callFrame;
  if (!url) return functionName || '(anonymous)';
  // Compiled files (tsc's or tsx's): the line is of the generated code, and misleads more than it helps.
  const line = /\/(src|bench|test)\//.test(url) ? '' : `:${lineNumber + 1}`;
  return `${functionName || '(anonymous)'} ${shortUrl(url)}${line}`;
}

function shortUrl(url: string): string {
  const i = url.lastIndexOf('node_modules/');
  if (i >= 0) return url.slice(i + 'node_modules/'.length);
  const j = url.search(/\/(src|bench|test)\//);
  return j >= 0 ? url.slice(j + 1) : url.replace(/^file:\/\//, '');
}

/** A package, a Hookline folder (`hookline/ingest`), a Node internal area, or a V8 pseudo-frame. */
export function areaOf(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return pkg[1]!;
  const own = /\/(src|bench)\/([^/]+)\//.exec(url) ?? /\/(src|bench)\/([^/]+)$/.exec(url);
  if (own) return own[1] === 'src' ? `hookline/${own[2]!.replace(/\.ts$/, '')}` : 'bench';
  const internal = /^node:(?:internal\/)?([^/]+)/.exec(url);
  if (internal) return `node:${internal[1]}`;
  return url;
}

/** Printable lines of a summary; with `items` (events delivered in the phase), allocations per item. */
export function formatSummary(title: string, s: ProfileSummary, items?: number): string[] {
  const perItem = (bytes: number) =>
    items
      ? `${(bytes / items / 1_024).toFixed(2).padStart(7)} KB/event`
      : `${(bytes / 1_048_576).toFixed(1)} MB`;
  return [
    `  CPU profile of ${title} (${Math.round(s.totalMs)} ms, ${s.file}):`,
    '    by area (self % / incl. %):',
    ...s.areas.map(
      (a) =>
        `      ${a.area.padEnd(34)} ${a.selfPct.toFixed(1).padStart(5)} / ${a.inclusivePct.toFixed(1).padStart(5)}`,
    ),
    '    top functions (self % / incl. %):',
    ...s.functions
      .slice(0, 14)
      .map(
        (f) =>
          `      ${f.fn.slice(0, 80).padEnd(80)} ${f.selfPct.toFixed(1).padStart(5)} / ${f.inclusivePct.toFixed(1).padStart(5)}`,
      ),
    `    allocated (sampled, ${s.allocations.file}): ${perItem(s.allocations.totalBytes)}; top functions:`,
    ...s.allocations.functions
      .slice(0, 14)
      .map((f) => `      ${f.fn.slice(0, 80).padEnd(80)} ${perItem(f.bytes)}`),
  ];
}
