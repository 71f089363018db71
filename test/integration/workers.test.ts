import { readdirSync, readFileSync } from 'node:fs';
import { get } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { ADMIN_TOKEN, LOOPBACK_NETWORKS, TEST_SECRETS_KEY, uniquePrefix } from '../support/app';
import { eventually } from '../support/eventually';
import { exited, spawnHookline } from '../support/process';
import { startReceiver, type Receiver } from '../support/receiver';

/** Pids of the live Hookline processes whose parent is `pid` (Linux /proc; not tsx's esbuild). */
function childPids(pid: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Fields after the command's closing parenthesis: state, ppid, ...
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const main = readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('src/process/main.ts');
      if (Number(ppid) === pid && state !== 'Z' && main) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids.sort();
}

/**
 * HOOKLINE_WORKERS=2: one primary and two children sharing the HTTP port and the consumer groups.
 * Events are delivered, /metrics adds up both children, either child answers attempt queries from
 * the one attempt index of the group, and a child killed with SIGKILL is restarted while nothing
 * it had accepted or taken is lost.
 */
describe('HOOKLINE_WORKERS=2', () => {
  let receiver: Receiver;
  let primary: ReturnType<typeof spawnHookline> | undefined;

  afterAll(async () => {
    if (primary && primary.exitCode === null) {
      primary.kill('SIGKILL');
      await exited(primary);
    }
    await receiver?.close();
  });

  it('delivers, aggregates /metrics, answers attempts from one index, restarts a child killed with SIGKILL, loses nothing, drains on SIGTERM', async () => {
    receiver = await startReceiver(() => ({ status: 200 }));
    const hookline = spawnHookline({
      KAFKA_BROKERS: process.env.KAFKA_BROKERS!,
      SCHEMA_REGISTRY_URL: process.env.SCHEMA_REGISTRY_URL!,
      HOOKLINE_WORKERS: '2',
      HOOKLINE_TOPIC_PREFIX: uniquePrefix(),
      HOOKLINE_TOPIC_PARTITIONS: '4',
      HOOKLINE_HTTP_PORT: '0',
      HOOKLINE_HTTP_HOST: '127.0.0.1',
      HOOKLINE_ADMIN_TOKEN: ADMIN_TOKEN,
      HOOKLINE_SECRETS_KEY: TEST_SECRETS_KEY,
      HOOKLINE_KAFKA_SESSION_TIMEOUT: '6s',
      HOOKLINE_ALLOWED_NETWORKS: LOOPBACK_NETWORKS,
    });
    primary = hookline;
    const base = await eventually(() => /HTTP API\s+(http:\/\/\S+)/.exec(hookline.output.join(''))?.[1], {
      what: 'the banner, once both children started',
      timeoutMs: 120_000,
    });
    expect(hookline.output.join('')).toContain('2 processes');
    const firstChildren = childPids(hookline.pid!);
    expect(firstChildren).toHaveLength(2);

    const admin = async (path: string, body: unknown) => {
      const res = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(201);
      return (await res.json()) as { id: string; writeKey: string };
    };
    const source = await admin('/api/v1/sources', { name: 'workers', enabled: true });
    const destination = await admin('/api/v1/destinations', {
      sourceId: source.id,
      name: 'receiver',
      enabled: true,
      settings: { webhooks: [{ url: receiver.url }] },
    });

    /** Sends batch `n` until it is answered 200 (the other child may not know the source yet; a child may be down). */
    const sendBatch = (n: number) =>
      eventually(
        async () => {
          const res = await fetch(`${base}/v1/batch`, {
            method: 'POST',
            headers: {
              authorization: `Basic ${Buffer.from(`${source.writeKey}:`).toString('base64')}`,
              'content-type': 'application/json',
            },
            body: JSON.stringify({
              batch: Array.from({ length: 10 }, (_, i) => ({
                type: 'track',
                userId: `user-${n}-${i}`,
                event: 'Workers',
                messageId: `w-${n}-${i}`,
              })),
            }),
          }).catch(() => undefined);
          return res?.status === 200 || undefined;
        },
        { what: `batch ${n} accepted`, timeoutMs: 60_000 },
      );
    const delivered = () =>
      new Set(receiver.requests.map((q) => JSON.parse(q.body.toString()).messageId as string));

    for (let n = 0; n < 20; n++) await sendBatch(n);
    await eventually(() => delivered().size === 200 || undefined, {
      what: '200 events delivered',
      timeoutMs: 90_000,
    });

    // One /metrics for both children: the accepted events of either add up.
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/^hookline_ingest_events_total\{type="track",outcome="accepted"\} 200$/m);
    expect(metrics).toMatch(/^hookline_catalog_ready 1$/m);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ checks: { workers: 'ok' } });

    // Attempts: one child keeps the index, the other asks it through the primary. Connections go
    // to the children in turn, so of four queries on fresh connections each child answers some.
    const attemptsSeen = async () => {
      const { status, body } = await getOnNewConnection(
        `${base}/api/v1/destinations/${destination.id}/attempts?limit=500`,
      );
      if (status !== 200) return -status;
      return new Set(
        (JSON.parse(body) as { attempts: { messageId: string }[] }).attempts.map((a) => a.messageId),
      ).size;
    };
    await eventually(
      async () => {
        const seen = [await attemptsSeen(), await attemptsSeen(), await attemptsSeen(), await attemptsSeen()];
        return seen.every((n) => n === 200) || undefined;
      },
      { what: 'every query, on either child, sees the 200 attempts', timeoutMs: 30_000 },
    );
    // Each attempt is kept once in the group (it was kept once per child).
    await eventually(
      async () =>
        /^hookline_attempt_index_attempts 200$/m.test(await (await fetch(`${base}/metrics`)).text()) ||
        undefined,
      { what: 'the group keeping each attempt once', timeoutMs: 30_000 },
    );

    // SIGKILL one child mid-traffic: the primary starts another; every event still arrives.
    process.kill(firstChildren[0]!, 'SIGKILL');
    for (let n = 20; n < 40; n++) await sendBatch(n);
    await eventually(
      () => {
        const now = childPids(hookline.pid!);
        return now.length === 2 && !now.includes(firstChildren[0]!) ? now : undefined;
      },
      { what: 'a new child in place of the killed one', timeoutMs: 60_000 },
    );
    await eventually(() => delivered().size === 400 || undefined, {
      what: '400 events delivered',
      timeoutMs: 120_000,
    });
    expect([...delivered()].sort()).toEqual(
      Array.from({ length: 40 }, (_, n) => Array.from({ length: 10 }, (_, i) => `w-${n}-${i}`))
        .flat()
        .sort(),
    );
    await eventually(async () => (await fetch(`${base}/readyz`)).status === 200 || undefined, {
      what: 'ready again with both children',
      timeoutMs: 60_000,
    });
    // The killed child's counts stay in the group's counters (they went back to the survivor's).
    expect(await (await fetch(`${base}/metrics`)).text()).toMatch(
      /^hookline_ingest_events_total\{type="track",outcome="accepted"\} 400$/m,
    );
    // Whichever child was killed, the group keeps its attempt index: the restarted keeper reads
    // the attempts topic again.
    await eventually(
      async () => {
        const seen = [await attemptsSeen(), await attemptsSeen(), await attemptsSeen(), await attemptsSeen()];
        return seen.every((n) => n === 400) || undefined;
      },
      { what: 'every query sees the 400 attempts after the restart', timeoutMs: 60_000 },
    );

    // SIGTERM: the primary lets both children drain and exits 0, leaving none behind.
    const children = childPids(hookline.pid!);
    hookline.kill('SIGTERM');
    expect(await exited(hookline)).toBe(0);
    await eventually(() => children.every((pid) => !existsProcess(pid)) || undefined, {
      what: 'every child gone',
    });
  });
});

describe('HOOKLINE_WORKERS=2, a child that cannot start', () => {
  it('makes the primary exit 1 (as one process would) instead of restarting it forever', async () => {
    // The HTTP port is taken: every child's start-up fails at listen.
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as AddressInfo).port;
    const hookline = spawnHookline({
      KAFKA_BROKERS: process.env.KAFKA_BROKERS!,
      SCHEMA_REGISTRY_URL: process.env.SCHEMA_REGISTRY_URL!,
      HOOKLINE_WORKERS: '2',
      HOOKLINE_TOPIC_PREFIX: uniquePrefix(),
      HOOKLINE_HTTP_PORT: String(port),
      HOOKLINE_HTTP_HOST: '127.0.0.1',
      HOOKLINE_ADMIN_TOKEN: ADMIN_TOKEN,
      HOOKLINE_SECRETS_KEY: TEST_SECRETS_KEY,
    });
    try {
      const code = await Promise.race([
        exited(hookline),
        new Promise<'running'>((resolve) => setTimeout(() => resolve('running'), 120_000).unref()),
      ]);
      expect(code).toBe(1);
      expect(hookline.output.join('')).toContain('child process failed to start');
      expect(childPids(hookline.pid!)).toEqual([]);
    } finally {
      if (hookline.exitCode === null) hookline.kill('SIGKILL');
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });
});

/** A GET with the admin token on a connection of its own (the primary hands connections to the children in turn). */
function getOnNewConnection(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = get(url, { agent: false, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error('no answer in 10 s')));
  });
}

function existsProcess(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
