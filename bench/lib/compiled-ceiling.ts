import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { resolveCacheDir } from '../../tools/devstack/paths';
import { projectRoot } from '../../test/support/project-root';

const run = promisify(execFile);
const SOURCE_DIR = path.join(projectRoot(), 'bench', 'ceiling');
const SOURCES = ['go.mod', 'main.go'];

/** Keep-alive connections of the compiled client: "many", as in the issue (its receiver is one Node loop). */
export const CEILING_CONNECTIONS = 64;
const WARM_UP = '1s';
const DURATION = '5s';

export interface CompiledCeiling {
  connections: number;
  requests: number;
  failed: number;
  elapsedMs: number;
  requestsPerSecond: number;
  firstFailure?: string;
  goVersion?: string;
}

/** Why the compiled ceiling was not measured (Go missing), or its figures. */
export type CompiledCeilingOutcome = { ok: true; ceiling: CompiledCeiling } | { ok: false; reason: string };

/**
 * Issue 16's second baseline: the HTTP ceiling of the receiver as a compiled load client sees it
 * (bench/ceiling, Go, stdlib only): `CEILING_CONNECTIONS` keep-alive connections posting `body` to
 * `url` for 5 s after a 1 s warm-up. The binary is built on first use into
 * `~/.cache/hookline/bench-ceiling/ceiling-<hash of its sources>`, so a changed source is rebuilt.
 * Without Go the outcome says so (the caller skips the check).
 */
export async function measureCompiledCeiling(options: {
  url: string;
  body: string;
  log(message: string): void;
}): Promise<CompiledCeilingOutcome> {
  const binary = await ensureBuilt(options.log);
  if (binary === undefined)
    return {
      ok: false,
      reason: 'Go is not installed (`go` not on PATH): the compiled-client ceiling was not measured',
    };
  const bodyFile = path.join(os.tmpdir(), `hookline-bench-ceiling-${process.pid}.json`);
  await fs.writeFile(bodyFile, options.body);
  try {
    const args = ['-url', options.url, '-body', bodyFile, '-connections', String(CEILING_CONNECTIONS)];
    const { stdout } = await run(binary, [...args, '-warmup', WARM_UP, '-duration', DURATION], {
      timeout: 60_000,
    });
    const ceiling = JSON.parse(stdout.trim()) as CompiledCeiling;
    if (ceiling.failed > 0)
      throw new Error(`compiled client: ${ceiling.failed} requests failed: ${ceiling.firstFailure}`);
    return { ok: true, ceiling };
  } finally {
    await fs.rm(bodyFile, { force: true });
  }
}

/**
 * The binary for the current sources, built with `go build` if it is not in the cache yet;
 * undefined when Go is missing. A failing build (Go present) throws: that is a bench bug.
 */
async function ensureBuilt(log: (message: string) => void): Promise<string | undefined> {
  const hash = createHash('sha256');
  for (const file of SOURCES) hash.update(file).update(await fs.readFile(path.join(SOURCE_DIR, file)));
  const dir = path.join(resolveCacheDir({}), 'bench-ceiling');
  const binary = path.join(dir, `ceiling-${hash.digest('hex').slice(0, 16)}`);
  if (await exists(binary)) return binary;
  const env = { ...process.env, GOTOOLCHAIN: 'local', GOFLAGS: '-mod=mod', CGO_ENABLED: '0' };
  try {
    await run('go', ['version'], { env });
  } catch {
    return undefined;
  }
  log(`building the compiled load client (bench/ceiling) into ${binary}`);
  await fs.mkdir(dir, { recursive: true });
  const partial = `${binary}.${process.pid}.partial`;
  await run('go', ['build', '-o', partial, '.'], { cwd: SOURCE_DIR, env, timeout: 300_000 });
  await fs.rename(partial, binary);
  return binary;
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch {
    return false;
  }
}
