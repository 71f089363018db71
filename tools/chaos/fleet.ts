import type { ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { eventually } from '../../test/support/eventually';
import { exited, spawnHookline } from '../../test/support/process';

/** A fixed key for the fleet's destination secrets: the run's catalog lives and dies with it. */
const CHAOS_SECRETS_KEY = Buffer.from('hookline-chaos-secrets-key-32byt').toString('base64');
import { track } from '../devstack/cleanup';
import { findFreePorts } from '../devstack/ports';

/** How long a (re)started process may take to answer /readyz: tsx compiles src/ on a loaded 2-core machine. */
const READY_TIMEOUT_MS = 120_000;
/** Before respawning a process that exited by itself (as a Kubernetes restart policy would). */
const RESPAWN_DELAY_MS = 1_000;

export interface FleetOptions {
  kafkaBrokers: string[];
  schemaRegistryUrl: string;
  adminToken: string;
  /** Worker-only processes besides the ingest+router one. */
  workers: number;
  /** The workers are router+worker processes and the front one only ingests (first attempts from the events). */
  direct?: boolean;
  /** Hookline settings for every process. */
  env: Record<string, string>;
}

interface Member {
  name: string;
  port: number;
  env: Record<string, string>;
  child: ChildProcess & { output: string[] };
  /** Set while we kill it on purpose: its exit is not a crash. */
  killing: boolean;
}

/**
 * Hookline as the chaos run deploys it: one ingest+router process and `workers` worker-only
 * processes (`HOOKLINE_ROLES=worker`), each a real child process (src/process/main.ts) on the given
 * cluster. Like a process supervisor, the fleet respawns a process that exits by itself (a
 * failed start while the broker is down, say) and counts it.
 */
export class HooklineFleet {
  /** Processes that exited without being killed, with the last lines they printed. */
  readonly unexpectedExits: { name: string; code: number | null; outputTail: string }[] = [];
  private stopped = false;
  /** On this process's exit or Ctrl-C (see devstack/cleanup.ts), no Hookline process is left behind. */
  private readonly untrack = track({ stop: () => this.stop(), killNow: () => this.killAll() });

  private constructor(
    private readonly router: Member,
    private readonly workers: Member[],
  ) {}

  static async start(options: FleetOptions): Promise<HooklineFleet> {
    const ports = await findFreePorts({ count: options.workers + 1 });
    const common = {
      ...options.env,
      KAFKA_BROKERS: options.kafkaBrokers.join(','),
      SCHEMA_REGISTRY_URL: options.schemaRegistryUrl,
      HOOKLINE_ADMIN_TOKEN: options.adminToken,
      HOOKLINE_HTTP_HOST: '127.0.0.1',
      // Workers deliver to receivers on loopback.
      HOOKLINE_ALLOWED_NETWORKS: '127.0.0.0/8',
      // One key for every process of the fleet (production start refuses to run without one).
      HOOKLINE_SECRETS_KEY: CHAOS_SECRETS_KEY,
    };
    const member = (name: string, port: number, roles: string): Member => ({
      name,
      port,
      env: { ...common, HOOKLINE_ROLES: roles, HOOKLINE_HTTP_PORT: String(port) },
      child: undefined as unknown as Member['child'],
      killing: false,
    });
    const fleet = options.direct
      ? new HooklineFleet(
          member('ingest', ports[0]!, 'ingest'),
          ports.slice(1).map((port, i) => member(`router+worker-${i + 1}`, port, 'router,worker')),
        )
      : new HooklineFleet(
          member('ingest+router', ports[0]!, 'ingest,router'),
          ports.slice(1).map((port, i) => member(`worker-${i + 1}`, port, 'worker')),
        );
    for (const m of fleet.members()) fleet.spawn(m);
    try {
      await Promise.all(fleet.members().map((m) => fleet.waitReady(m)));
    } catch (err) {
      await fleet.stop();
      throw err;
    }
    return fleet;
  }

  /** Tracking and admin API of the ingest+router process. */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.router.port}`;
  }

  get workerCount(): number {
    return this.workers.length;
  }

  /** SIGKILLs worker `index`, starts it again at once, and resolves once it answers /readyz. */
  async killWorker(index: number): Promise<void> {
    const worker = this.workers[index]!;
    worker.killing = true;
    worker.child.kill('SIGKILL');
    await exited(worker.child);
    worker.killing = false;
    this.spawn(worker);
    await this.waitReady(worker);
  }

  /** True when every process answers 200 to GET `path` of its admin API (e.g. a destination it must know). */
  async everyProcessAnswers(path: string, adminToken: string): Promise<boolean> {
    const statuses = await Promise.all(
      this.members().map(async (m) => {
        const res = await fetch(`http://127.0.0.1:${m.port}${path}`, {
          headers: { authorization: `Bearer ${adminToken}` },
          signal: AbortSignal.timeout(2_000),
        });
        await res.arrayBuffer();
        return res.status;
      }),
    );
    return statuses.every((status) => status === 200);
  }

  /** The last lines every process printed (for a failure message). */
  outputTail(lines = 20): string {
    return this.members()
      .map((m) => `--- ${m.name} ---\n${tail(m.child.output, lines)}`)
      .join('\n');
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.killAll();
    await Promise.all(this.members().map((m) => exited(m.child)));
    this.untrack();
  }

  private killAll(): void {
    for (const m of this.members()) m.child.kill('SIGKILL');
  }

  private members(): Member[] {
    return [this.router, ...this.workers];
  }

  private spawn(m: Member): void {
    // Errors only by default: every failed attempt to a hung destination logs a warning.
    const child = spawnHookline({ HOOKLINE_LOG_LEVEL: process.env.HOOKLINE_LOG_LEVEL ?? 'error', ...m.env });
    m.child = child;
    if (process.env.CHAOS_LOG_DIR) {
      // Every process's log, for a closer look at a run (HOOKLINE_LOG_LEVEL=info says most).
      const file = createWriteStream(join(process.env.CHAOS_LOG_DIR, `${m.name}.log`), { flags: 'a' });
      child.stdout!.pipe(file, { end: false });
      child.stderr!.pipe(file, { end: false });
    }
    child.once('exit', (code) => {
      if (this.stopped || m.killing || m.child !== child) return;
      this.unexpectedExits.push({ name: m.name, code, outputTail: tail(child.output, 20) });
      setTimeout(() => {
        if (!this.stopped && m.child === child) this.spawn(m);
      }, RESPAWN_DELAY_MS);
    });
  }

  private async waitReady(m: Member): Promise<void> {
    // What /readyz said last: which check failed, or that nothing listened yet (still starting up).
    let lastAnswer = 'no answer yet';
    const ready = eventually(
      async () => {
        try {
          const res = await fetch(`http://127.0.0.1:${m.port}/readyz`, {
            signal: AbortSignal.timeout(2_000),
          });
          lastAnswer = `${res.status} ${await res.text()}`;
          return res.status === 200;
        } catch (err) {
          lastAnswer = `failed: ${(err as Error).cause ?? (err as Error).message}`;
          throw err;
        }
      },
      { timeoutMs: READY_TIMEOUT_MS, intervalMs: 250, what: `${m.name} to answer /readyz` },
    );
    await ready.catch((err: Error) => {
      const exits = this.unexpectedExits.filter((e) => e.name === m.name);
      const detail = exits.map((e) => `exited (code ${e.code}):\n${e.outputTail}`).join('\n');
      throw new Error(
        `${err.message}; its last answer: ${lastAnswer}\n${detail || tail(m.child.output, 20)}`,
      );
    });
  }
}

function tail(output: string[], lines: number): string {
  return output.join('').split('\n').slice(-lines).join('\n');
}
