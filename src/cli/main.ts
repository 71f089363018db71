#!/usr/bin/env node
import { parseArgs, USAGE, UsageError, type Command } from './args';
import { attemptTable, deadLetterTable } from './format';
import { requestFor, type ApiRequest } from './requests';

/** What the CLI touches of the outside world; tests pass their own. */
export interface CliIo {
  env: NodeJS.ProcessEnv;
  fetch: typeof fetch;
  stdout(text: string): void;
  stderr(text: string): void;
  now(): number;
  sleep(ms: number): Promise<void>;
}

/** A non-2xx answer of the admin API. */
class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`HTTP ${status}`);
  }
}

const REPLAY_POLL_MS = 1_000;

/**
 * `hookline` — the operator's CLI over the admin API (HOOKLINE_URL, HOOKLINE_ADMIN_TOKEN).
 * Exit codes: 0 done, 1 the API refused or could not be reached, 2 bad usage.
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let command: Command;
  let json: boolean;
  try {
    ({ command, json } = parseArgs(argv, io.now()));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.stderr(`hookline: ${err.message}\n\n${USAGE}\n`);
    return 2;
  }
  if (command.name === 'help') {
    io.stdout(`${USAGE}\n`);
    return 0;
  }
  const call = (request: ApiRequest) => callApi(request, io);
  try {
    let body = await call(requestFor(command));
    if (command.name === 'replay' && command.wait) {
      const id = (body as { id: string }).id;
      while (!(body as { done: boolean }).done) {
        io.stderr(`${progressLine(body)}\n`);
        await io.sleep(REPLAY_POLL_MS);
        body = await call(requestFor({ name: 'replay-status', id }));
      }
    }
    io.stdout(`${render(command, body, json)}\n`);
    return command.name === 'replay' && (body as { state?: string }).state === 'failed' ? 1 : 0;
  } catch (err) {
    if (err instanceof ApiError) {
      const { error, message } = (err.body ?? {}) as { error?: string; message?: string };
      io.stderr(`hookline: ${err.message}${error ? ` ${error}` : ''}${message ? `: ${message}` : ''}\n`);
    } else {
      io.stderr(`hookline: ${err instanceof Error ? err.message : String(err)}\n`);
    }
    return 1;
  }
}

async function callApi(request: ApiRequest, io: CliIo): Promise<unknown> {
  const baseUrl = (io.env.HOOKLINE_URL || 'http://127.0.0.1:8080').replace(/\/+$/, '');
  const headers: Record<string, string> = { accept: 'application/json' };
  if (io.env.HOOKLINE_ADMIN_TOKEN) headers.authorization = `Bearer ${io.env.HOOKLINE_ADMIN_TOKEN}`;
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await io.fetch(`${baseUrl}${request.path}`, {
      method: request.method,
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
    });
  } catch (err) {
    throw new Error(`cannot reach ${baseUrl}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = { message: text };
  }
  if (!res.ok) throw new ApiError(res.status, body);
  return body;
}

function render(command: Command, body: unknown, json: boolean): string {
  if (!json && command.name === 'dlq-list')
    return deadLetterTable(body as Parameters<typeof deadLetterTable>[0]);
  if (!json && command.name === 'attempts') return attemptTable(body as Parameters<typeof attemptTable>[0]);
  return JSON.stringify(body, null, 2);
}

function progressLine(body: unknown): string {
  const p = body as { id: string; eventsRead: number; eventsTotal?: number; tasksWritten: number };
  return `replay ${p.id}: ${p.eventsRead}/${p.eventsTotal ?? '?'} events read, ${p.tasksWritten} tasks written`;
}

if (require.main === module) {
  void runCli(process.argv.slice(2), {
    env: process.env,
    fetch,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    now: Date.now,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  }).then((code) => {
    process.exitCode = code;
  });
}
