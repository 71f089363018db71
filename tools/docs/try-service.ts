import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import { pollUntil } from '../devstack/wait';
import { stopTree, type StoppedTree } from './process-tree';
import { track } from '../devstack/cleanup';

/** What a process printed, the last `maxChars` of it. */
export class OutputTail {
  private text = '';
  constructor(private readonly maxChars = 64_000) {}
  add(chunk: Buffer | string): void {
    this.text = (this.text + chunk.toString()).slice(-this.maxChars);
  }
  lines(count: number): string {
    return this.text.trimEnd().split('\n').slice(-count).join('\n');
  }
}

/** A command run by bash as the leader of its own process group, so the group can be stopped whole. */
export interface GroupProcess {
  child: ChildProcess;
  pgid: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Stops the group and everything it started, once; says whether anything is left. */
  stop(): Promise<StoppedTree>;
}

export const STOP_GRACE_MS = 30_000;

export function spawnGroup(options: {
  script: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** stdio beyond stdin (ignored): 'pipe' for stdout and stderr, and more for fd 3. */
  fds: number;
}): GroupProcess {
  const child = spawn('bash', ['-c', options.script], {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ['ignore', ...Array<'pipe'>(options.fds).fill('pipe')],
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('error', () => resolve({ code: null, signal: null }));
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const pgid = child.pid ?? 0;
  let stopping: Promise<StoppedTree> | undefined;
  const stop = () =>
    (stopping ??= (
      pgid > 0
        ? stopTree({ pgid, graceMs: STOP_GRACE_MS })
        : Promise.resolve({ seen: 0, left: [], killed: false })
    ).finally(() => untrack()));
  // Ctrl-C or the end of the runner stops the group too (devstack's exit and signal hooks).
  const untrack = track({
    stop: async () => void (await stop()),
    killNow: () => {
      try {
        if (pgid > 0) process.kill(-pgid, 'SIGKILL');
      } catch {
        // Gone.
      }
    },
  });
  return { child, pgid, exited, stop };
}

/** A `sh service` block, running in the background. */
export interface Service extends GroupProcess {
  output: OutputTail;
}

export function startService(options: {
  body: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
}): Service {
  const group = spawnGroup({
    script: ['set -euo pipefail', ...options.body].join('\n'),
    cwd: options.cwd,
    env: options.env,
    fds: 2,
  });
  const output = new OutputTail();
  group.child.stdout?.on('data', (chunk: Buffer) => output.add(chunk));
  group.child.stderr?.on('data', (chunk: Buffer) => output.add(chunk));
  return { ...group, output };
}

/**
 * Polls `GET /readyz` on `port` until it answers 200. Resolves with undefined when ready, else why
 * not: the service exited, or `timeoutMs` passed.
 */
export async function waitReady(options: {
  service: Service;
  port: number;
  timeoutMs: number;
}): Promise<string | undefined> {
  const { service, port, timeoutMs } = options;
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  void service.exited.then((e) => (exit = e));
  let last = 'no answer';
  const result = await pollUntil({
    timeoutMs,
    intervalMs: 500,
    probe: async () => {
      if (exit) return `it exited (${exit.signal ?? `code ${exit.code}`}) before it was ready`;
      try {
        const res = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2_000) });
        await res.body?.cancel();
        if (res.status === 200) return 'ready';
        last = `HTTP ${res.status}`;
      } catch (err) {
        const cause = err instanceof Error ? (err.cause ?? err) : err;
        last = cause instanceof Error ? cause.message : String(cause);
      }
      return undefined;
    },
  });
  if (result === 'ready') return undefined;
  return (
    result ??
    `GET http://127.0.0.1:${port}/readyz did not answer 200 within ${timeoutMs / 1_000} s (last: ${last})`
  );
}

/** The ports of `ports` something listens on already (a listen on all interfaces fails). */
export async function busyPorts(ports: readonly number[]): Promise<number[]> {
  const busy: number[] = [];
  for (const port of ports) {
    const server = net.createServer();
    const free = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen({ port, exclusive: true }, () => resolve(true));
    });
    if (free) await new Promise<void>((resolve) => server.close(() => resolve()));
    else busy.push(port);
  }
  return busy;
}
