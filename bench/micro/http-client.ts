/**
 * Micro-benchmark of the webhook HTTP client: keep-alive POSTs of a ~1 KB signed body to a local
 * receiver (its own process, answering 200 at once), 50 in flight (the worker's per-destination
 * concurrency). Side by side in one run, interleaved rounds: raw node:http (the baseline) and
 * Hookline's webhook client (src/delivery/http/client.ts, SSRF guard and all). Commit 2605508 ran
 * the same rounds with got 11, the client before undici (figures in bench/README.md). Prints requests/s and CPU µs per request of this process, and ratios to the
 * raw round of the same repetition.
 *
 *   npx tsx bench/micro/http-client.ts [requests per round, default 20000] [repetitions, default 3]
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { createAddressPolicy } from '../../src/security/address-policy';
import { createWebhookClient, type WebhookClient } from '../../src/delivery/http/client';
import { median } from '../lib/stats';

const CONCURRENCY = 50;

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
          `rep ${rep + 1} ${name.padEnd(17)} ${figures.rps.toFixed(0)} req/s  ${figures.cpuUs.toFixed(1)} µs CPU/req`,
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
    '\nmedian over repetitions; ratio = per repetition to raw node:http of the same repetition, median',
  );
  for (const [name, row] of Object.entries(rows)) {
    const rpsRatio = median(row.rps.map((v, i) => v / raw.rps[i]!));
    const cpuRatio = median(row.cpuUs.map((v, i) => v / raw.cpuUs[i]!));
    console.log(
      `${name.padEnd(17)} ${median(row.rps).toFixed(0).padStart(6)} req/s (×${rpsRatio.toFixed(2)})  ` +
        `${median(row.cpuUs).toFixed(1).padStart(6)} µs CPU/req (×${cpuRatio.toFixed(2)})  ` +
        `spread req/s ${Math.min(...row.rps).toFixed(0)}–${Math.max(...row.rps).toFixed(0)}`,
    );
  }
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

function stop(child: ChildProcess): void {
  if (child.exitCode === null) child.kill();
}
