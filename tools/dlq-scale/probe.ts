import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { exited, spawnHookline } from '../../test/support/process';

/** Resident and peak resident memory of a process, in MB, from /proc (Linux). */
export function memoryMb(pid: number): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface HooklineProcess {
  pid: number;
  /** V8 heap in use and memory outside it (Buffers), in MB, from Hookline's own /metrics. */
  heapMb(): Promise<{ heapUsedMb: number; externalMb: number }>;
  baseUrl: string;
  call(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }>;
  /** Waits until the dead-letter listing answers 200 (the index has read the topic). */
  indexed(deadlineMs: number): Promise<{ indexMs: number; maxRssMb: number }>;
  kill(signal: NodeJS.Signals): Promise<void>;
  outputTail(): string;
}

/**
 * Starts Hookline as a child process on its own port: src/process/main.ts as `npm start` runs it, or with
 * `built` the compiled dist/src/process/main.js as the container image runs it.
 */
export async function startHookline(
  env: Record<string, string>,
  adminToken: string,
  built: boolean,
): Promise<HooklineProcess> {
  const port = await freePort();
  const childEnv = {
    ...env,
    HOOKLINE_ADMIN_TOKEN: adminToken,
    HOOKLINE_HTTP_HOST: '127.0.0.1',
    HOOKLINE_HTTP_PORT: String(port),
  };
  const child = spawnHookline(childEnv, { built });
  const startedMs = performance.now();
  const baseUrl = `http://127.0.0.1:${port}`;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    });
    return { status: res.status, json: (await res.json()) as unknown };
  };
  return {
    pid: child.pid!,
    heapMb: async () => {
      const text = await (await fetch(`${baseUrl}/metrics`)).text();
      const gauge = (name: string) =>
        Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? NaN) / 1_048_576;
      return {
        heapUsedMb: gauge('hookline_nodejs_heap_size_used_bytes'),
        externalMb: gauge('hookline_nodejs_external_memory_bytes'),
      };
    },
    baseUrl,
    call,
    indexed: async (deadlineMs) => {
      let maxRssMb = 0;
      const until = performance.now() + deadlineMs;
      while (performance.now() < until) {
        if (child.exitCode !== null) throw new Error(`hookline exited (${child.exitCode})`);
        maxRssMb = Math.max(maxRssMb, memoryMb(child.pid!).rssMb);
        const status = await call('GET', '/api/v1/dead-letters?limit=1').then(
          (r) => r.status,
          () => 0,
        );
        if (status === 200) return { indexMs: performance.now() - startedMs, maxRssMb };
        await sleep(250);
      }
      throw new Error(`the dead-letter index did not answer within ${deadlineMs} ms`);
    },
    kill: async (signal) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      await exited(child);
    },
    outputTail: () => child.output.join('').slice(-4_000),
  };
}

export interface Latency {
  query: string;
  medianMs: number;
  maxMs: number;
  runs: number;
  /** What the last call answered (its total, or how many it returned). */
  answer: string;
}

/** Times `runs` calls made one after another. */
export async function timeCalls(
  query: string,
  runs: number,
  call: (run: number) => Promise<{ status: number; json: unknown }>,
  describe: (json: unknown) => string,
): Promise<Latency> {
  const times: number[] = [];
  let answer = '';
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    const { status, json } = await call(run);
    times.push(performance.now() - started);
    if (status !== 200) throw new Error(`${query}: answered ${status} ${JSON.stringify(json).slice(0, 300)}`);
    answer = describe(json);
  }
  times.sort((a, b) => a - b);
  return {
    query,
    medianMs: times[Math.floor(times.length / 2)]!,
    maxMs: times[times.length - 1]!,
    runs,
    answer,
  };
}
