/**
 * Micro-benchmark of the webhook HTTP client (docs/adr/0002-http-client.md): keep-alive POSTs of a
 * ~1 KB signed body to a local receiver (its own process, answering 200 at once), 50 in flight
 * (the worker's per-destination concurrency). Side by side in one run, interleaved rounds: raw
 * node:http (the baseline), Hookline's webhook client (src/delivery/http/client.ts: undici
 * `Pool.dispatch` with its own handler, SSRF guard and all), undici's public `Pool.request` (the
 * body dumped), and got (the HTTP client the design card names), each with what delivery needs:
 * keep-alive, 50 sockets, a 5 s deadline, no redirects, no retries, any status a value. Prints
 * requests/s and CPU µs per request of this process, and ratios to the raw round of the same
 * repetition. got is ESM-only: the bench needs Node >= 22.12 (require of an ES module).
 *
 *   npx tsx bench/micro/http-client.ts [requests per round, default 20000] [repetitions, default 3]
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { createAddressPolicy } from '../../src/security/address-policy';
import { createWebhookClient, type WebhookClient } from '../../src/delivery/http/client';
import { median } from '../lib/stats';

const CONCURRENCY = 50;
const TIMEOUT_MS = 5_000;

if (process.argv[2] === '--receiver') {
  const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    req.resume();
    req.once('end', () => res.end('ok'));
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    if (typeof address === 'object' && address !== null) process.send?.(address.port);
  });
} else {
  void main();
}

type Post = (url: string, headers: Record<string, string>, body: Buffer) => Promise<number>;

async function main(): Promise<void> {
  const requests = Number(process.argv[2] ?? 20_000);
  const repetitions = Number(process.argv[3] ?? 3);
  const child = fork(__filename, ['--receiver'], { execArgv: process.execArgv });
  const port = await new Promise<number>((resolve) => child.once('message', (m) => resolve(Number(m))));
  const url = `http://localhost:${port}/hook?token=abc`;
  const body = Buffer.from(JSON.stringify({ type: 'track', event: 'Order Completed', pad: 'x'.repeat(880) }));
  const headers = signedHeaders(body);
  const policy = createAddressPolicy({ allowedNetworks: ['127.0.0.0/8', '::1/128'] });
  const clients: Record<string, () => { post: Post; close: () => void }> = {
    'raw node:http': rawClient,
    'hookline (undici)': () => wrap(createWebhookClient({ addressPolicy: policy })),
    'undici Pool.request': () => undiciClient(url),
    got: gotClient,
  };
  const rows: Record<string, { rps: number[]; cpuUs: number[] }> = {};
  try {
    for (let rep = 0; rep < repetitions; rep++) {
      for (const [name, make] of Object.entries(clients)) {
        const client = make();
        await round(client.post, url, headers, body, 2_000); // warm-up: sockets open, JIT warm
        const figures = await round(client.post, url, headers, body, requests);
        client.close();
        (rows[name] ??= { rps: [], cpuUs: [] }).rps.push(figures.rps);
        rows[name].cpuUs.push(figures.cpuUs);
        console.log(
          `rep ${rep + 1} ${name.padEnd(19)} ${figures.rps.toFixed(0)} req/s  ${figures.cpuUs.toFixed(1)} µs CPU/req`,
        );
      }
    }
    report(rows);
  } finally {
    stop(child);
  }
}

async function round(post: Post, url: string, headers: Record<string, string>, body: Buffer, n: number) {
  let next = 0;
  const cpu = process.cpuUsage();
  const startedAt = performance.now();
  const worker = async () => {
    while (next < n) {
      next++;
      const status = await post(url, headers, body);
      if (status !== 200) throw new Error(`unexpected answer ${status}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const elapsedS = (performance.now() - startedAt) / 1_000;
  const used = process.cpuUsage(cpu);
  return { rps: n / elapsedS, cpuUs: (used.user + used.system) / n };
}

function report(rows: Record<string, { rps: number[]; cpuUs: number[] }>): void {
  const raw = rows['raw node:http']!;
  console.log(
    '\nmedian over repetitions; ratio = per repetition to raw node:http of the same repetition, median (range)',
  );
  for (const [name, row] of Object.entries(rows)) {
    const rpsRatios = row.rps.map((v, i) => v / raw.rps[i]!);
    const cpuRatios = row.cpuUs.map((v, i) => v / raw.cpuUs[i]!);
    console.log(
      `${name.padEnd(19)} ${median(row.rps).toFixed(0).padStart(6)} req/s (×${median(rpsRatios).toFixed(2)}, ${range(rpsRatios)})  ` +
        `${median(row.cpuUs).toFixed(1).padStart(6)} µs CPU/req (×${median(cpuRatios).toFixed(2)}, ${range(cpuRatios)})  ` +
        `spread req/s ${Math.min(...row.rps).toFixed(0)}–${Math.max(...row.rps).toFixed(0)}`,
    );
  }
}

function range(values: number[]): string {
  return `${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}`;
}

function signedHeaders(body: Buffer): Record<string, string> {
  const id = 'msg_2Lh9oQzYc6gT1';
  const timestampS = Math.floor(Date.now() / 1_000);
  const mac = createHmac('sha256', 'bench-secret')
    .update(`${id}.${timestampS}.`)
    .update(body)
    .digest('base64');
  return {
    'Content-Type': 'application/json',
    'User-Agent': 'Hookline/bench',
    'X-Signature': createHmac('sha256', 'bench-secret').update(body).digest('hex'),
    'webhook-id': id,
    'webhook-timestamp': String(timestampS),
    'webhook-signature': `v1,${mac}`,
  };
}

function wrap(client: WebhookClient): { post: Post; close: () => void } {
  return {
    post: async (url, headers, body) => {
      const attempt = await client.post({ url, headers, body });
      return attempt.kind === 'response' ? attempt.status : 0;
    },
    close: () => client.close(),
  };
}

function rawClient(): { post: Post; close: () => void } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const post: Post = (url, headers, body) =>
    new Promise((resolve) => {
      const req = http.request(
        url,
        { method: 'POST', agent, headers: { ...headers, 'Content-Length': body.length } },
        (res) => {
          res.resume();
          res.once('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.once('error', () => resolve(0));
      req.end(body);
    });
  return { post, close: () => agent.destroy() };
}

/** undici's public API as an application would use it: a keep-alive Pool, `request`, the body dumped. */
function undiciClient(url: string): { post: Post; close: () => void } {
  const pool = new Pool(new URL(url).origin, {
    connections: CONCURRENCY,
    headersTimeout: TIMEOUT_MS,
    bodyTimeout: TIMEOUT_MS,
  });
  const { pathname, search } = new URL(url);
  const post: Post = async (_url, headers, body) => {
    try {
      const res = await pool.request({ path: pathname + search, method: 'POST', headers, body });
      await res.body.dump();
      return res.statusCode;
    } catch {
      return 0;
    }
  };
  return { post, close: () => void pool.destroy() };
}

/** The few parts of got's API this uses (got is ESM-only, its types unreachable from CommonJS). */
interface Got {
  extend(options: Record<string, unknown>): Got;
  post(
    url: string,
    options: { headers: Record<string, string>; body: Buffer },
  ): Promise<{ statusCode: number }>;
}

/** got as a delivery needs it: keep-alive agent, 5 s deadline, no redirects, no retries, no throw on status. */
function gotClient(): { post: Post; close: () => void } {
  const got = (createRequire(__filename)('got') as { default: Got }).default;
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const client = got.extend({
    agent: { http: agent },
    timeout: { request: TIMEOUT_MS },
    followRedirect: false,
    retry: { limit: 0 },
    throwHttpErrors: false,
    decompress: false,
  });
  const post: Post = async (url, headers, body) => {
    try {
      return (await client.post(url, { headers, body })).statusCode;
    } catch {
      return 0;
    }
  };
  return { post, close: () => agent.destroy() };
}

function stop(child: ChildProcess): void {
  if (child.exitCode === null) child.kill();
}
