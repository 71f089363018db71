import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eventually } from './eventually';

/**
 * A real Prometheus server (Debian's `prometheus` package, or HOOKLINE_PROMETHEUS_BIN) on
 * 127.0.0.1, scraping the given targets every second and evaluating the given rule files every
 * second. `prometheusBinary()` is undefined when there is none, so that tests can skip.
 */
export interface Prometheus {
  url: string;
  /** GET /api/v1/<path>; returns `data` of a successful answer, throws otherwise. */
  api<T = unknown>(pathAndQuery: string): Promise<T>;
  stop(): Promise<void>;
}

export function prometheusBinary(): string | undefined {
  const bin = process.env.HOOKLINE_PROMETHEUS_BIN ?? 'prometheus';
  const probe = spawnSync(bin, ['--version'], { stdio: 'ignore' });
  return probe.status === 0 ? bin : undefined;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function startPrometheus(options: {
  bin: string;
  targets: string[];
  ruleFiles: string[];
}): Promise<Prometheus> {
  const dir = mkdtempSync(path.join(tmpdir(), 'hookline-prometheus-'));
  const config = path.join(dir, 'prometheus.yml');
  writeFileSync(
    config,
    JSON.stringify({
      global: { scrape_interval: '1s', evaluation_interval: '1s' },
      rule_files: options.ruleFiles,
      scrape_configs: [{ job_name: 'hookline', static_configs: [{ targets: options.targets }] }],
    }),
  );
  const port = await freePort();
  const child: ChildProcess = spawn(
    options.bin,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const output: string[] = [];
  child.stderr!.on('data', (d: Buffer) => output.push(d.toString()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await eventually(
      async () => {
        if (child.exitCode !== null) throw new Error(`prometheus exited: ${output.join('')}`);
        return (await fetch(`${url}/-/ready`)).ok;
      },
      { what: 'Prometheus to be ready', timeoutMs: 30_000, intervalMs: 200 },
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    url,
    api: async <T>(pathAndQuery: string) => {
      const res = await fetch(`${url}/api/v1/${pathAndQuery}`);
      const body = (await res.json()) as { status: string; data: T; error?: string };
      if (body.status !== 'success') throw new Error(`prometheus ${pathAndQuery}: ${body.error}`);
      return body.data;
    },
    stop,
  };
}
