import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rename, rm, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseJson, type JsonObject } from '../../../src/events/json';
import type { ClientRun, WireRequest } from './calls';

const execFileAsync = promisify(execFile);

/** The Go client programs next to this file, one module each. */
export type GoClient = 'go-v2' | 'go-v3';

/** First build downloads the client modules through the proxy; later ones hit the cache. */
export const GO_BUILD_TIMEOUT_MS = 240_000;
const GO_RUN_TIMEOUT_MS = 30_000;
const WEEK_MS = 7 * 86_400_000;
/** A client binary's sources: its own module, and the recorder module its go.mod replaces in. */
const CLIENT_FILES = ['go.mod', 'go.sum', 'main.go'];
const RECORDER_FILES = ['go-recorder/go.mod', 'go-recorder/recorder.go'];
const CACHE_DIR =
  process.env.HOOKLINE_SEGMENT_CLIENT_CACHE ?? join(homedir(), '.cache', 'hookline', 'segment-clients');

/**
 * The go command: $GO, else `go` on PATH, else the usual install location. Throws (never skips)
 * when there is none: these tests exist to prove the real clients work, and CI has Go.
 */
export async function findGo(): Promise<string> {
  const candidates = [process.env.GO, 'go', '/usr/local/go/bin/go'].filter((c): c is string => !!c);
  for (const candidate of candidates) {
    try {
      await execFileAsync(candidate, ['version'], { timeout: 10_000 });
      return candidate;
    } catch {
      // try the next one
    }
  }
  throw new Error(
    `no Go toolchain found (tried ${candidates.join(', ')}): the Segment Go client tests need Go >= 1.21 ` +
      'on PATH or in $GO, and access to the Go module proxy for the first build',
  );
}

/**
 * Builds test/support/segment/<client> with `go build` and returns the binary's path. Binaries
 * are cached by a hash of the sources and the Go version, so reruns skip the build.
 */
export async function buildGoClient(client: GoClient): Promise<string> {
  const go = await findGo();
  const dir = join(__dirname, client);
  const { stdout: version } = await execFileAsync(go, ['version'], { timeout: 10_000 });
  const hash = createHash('sha256').update(version);
  for (const file of [...CLIENT_FILES.map((f) => join(client, f)), ...RECORDER_FILES]) {
    hash.update(file).update(await readFile(join(__dirname, file)));
  }
  const binary = join(CACHE_DIR, `${client}-${hash.digest('hex').slice(0, 16)}`);
  if (existsSync(binary)) return binary;

  await mkdir(CACHE_DIR, { recursive: true });
  const partial = `${binary}.${process.pid}.tmp`;
  try {
    await execFileAsync(go, ['build', '-trimpath', '-o', partial, '.'], {
      cwd: dir,
      timeout: GO_BUILD_TIMEOUT_MS,
      env: { ...process.env, GOFLAGS: '-mod=mod', CGO_ENABLED: '0', GOTOOLCHAIN: 'local' },
    });
  } catch (err) {
    await rm(partial, { force: true });
    const { stderr, killed } = err as { stderr?: string; killed?: boolean };
    throw new Error(
      `go build of test/support/segment/${client} failed${killed ? ` (timed out after ${GO_BUILD_TIMEOUT_MS} ms)` : ''}; ` +
        `is the Go module proxy reachable (GOPROXY=${process.env.GOPROXY ?? 'default'})?\n${stderr ?? String(err)}`,
    );
  }
  await rename(partial, binary); // atomic: concurrent runs may both build, each result is whole
  // Binaries of older sources: dropped once a week old (another checkout may still use a newer one).
  for (const name of await readdir(CACHE_DIR)) {
    const path = join(CACHE_DIR, name);
    if (
      name.startsWith(`${client}-`) &&
      path !== binary &&
      Date.now() - (await stat(path)).mtimeMs > WEEK_MS
    ) {
      await rm(path, { force: true });
    }
  }
  return binary;
}

/** Runs a built client program against `endpoint`; rejects when it exits non-zero. */
export async function runGoClient(
  binary: string,
  endpoint: string,
  writeKey: string,
  runId: string,
): Promise<ClientRun> {
  const startedMs = Date.now();
  try {
    const { stdout } = await execFileAsync(binary, [endpoint, writeKey, runId], {
      timeout: GO_RUN_TIMEOUT_MS,
    });
    return { runId, requests: parseRequests(stdout), startedMs, endedMs: Date.now() };
  } catch (err) {
    const { stdout, stderr, code, killed } = err as {
      stdout?: string;
      stderr?: string;
      code?: number;
      killed?: boolean;
    };
    throw new Error(
      `${binary} ${killed ? 'timed out' : `exited ${code}`}\nstderr:\n${stderr}\nrequests:\n${stdout}`,
    );
  }
}

function parseRequests(stdout: string): WireRequest[] {
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const parsed = parseJson(line) as JsonObject;
      return parsed as unknown as WireRequest;
    });
}
