import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { startApp, type App } from '../../src/compose/index';
import { loadConfig } from '../../src/config/config';
import { createLogger } from '../../src/observability/logger';
import { ADMIN_TOKEN, TEST_SECRETS_KEY, clusterFromEnv } from './app';

/**
 * Whole Hookline processes in the test, logging into memory, for the catalog's integration tests
 * (catalog-api.test.ts, catalog-processes.test.ts). Each test uses its own topic prefix.
 */
export const SHARED_SECRET = `whsec_${randomBytes(12).toString('hex')}`;

/** A parsed JSON answer; tests read into it freely. */
export type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface ApiResponse {
  status: number;
  body: Json;
}

export interface Process {
  app: App;
  /** Everything the process logged, to check that no secret is ever written there. */
  logs: string[];
  /** Calls the HTTP API; `token` null sends no Authorization header. */
  call(method: string, path: string, body?: unknown, token?: string | null): Promise<ApiResponse>;
}

const running: Process[] = [];

/** Stops every process a test started, after each test of the file that calls it. */
export function stopProcessesAfterEach(): void {
  afterEach(async () => {
    await Promise.all(running.splice(0).map((p) => p.app.stop()));
  });
}

/** A whole process on the real cluster, logging into memory (unlike support/app's startTestApp). */
export async function startProcess(prefix: string): Promise<Process> {
  const cluster = clusterFromEnv();
  const config = loadConfig({
    KAFKA_BROKERS: cluster.kafkaBrokers.join(','),
    SCHEMA_REGISTRY_URL: cluster.schemaRegistryUrl,
    HOOKLINE_TOPIC_PREFIX: prefix,
    HOOKLINE_TOPIC_PARTITIONS: '1',
    HOOKLINE_HTTP_PORT: '0',
    HOOKLINE_HTTP_HOST: '127.0.0.1',
    HOOKLINE_ADMIN_TOKEN: ADMIN_TOKEN,
    HOOKLINE_SECRETS_KEY: TEST_SECRETS_KEY,
  });
  const logs: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(chunk.toString('utf8'));
      done();
    },
  });
  const app = await startApp({ config, cluster, logger: createLogger({ level: 'debug', destination }) });
  const base = `http://127.0.0.1:${app.httpPort}`;
  const proc: Process = {
    app,
    logs,
    async call(method, path, body, token = ADMIN_TOKEN) {
      const headers: Record<string, string> = {};
      if (token !== null) headers.authorization = `Bearer ${token}`;
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${base}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? (JSON.parse(text) as Json) : undefined };
    },
  };
  running.push(proc);
  // startApp returns once the catalog has caught up: ready at once, no polling needed.
  expect((await proc.call('GET', '/readyz', undefined, null)).body.checks.catalog).toBe('ok');
  return proc;
}

export const hook = (url: string, headers?: Record<string, string>) => (headers ? { url, headers } : { url });

export async function createSource(p: Process, name = 'Website'): Promise<Json> {
  const res = await p.call('POST', '/api/v1/sources', { name });
  expect(res.status).toBe(201);
  return res.body;
}

export async function createDestination(
  p: Process,
  sourceId: string,
  settings: object = { webhooks: [hook('https://example.com/in')] },
): Promise<Json> {
  const res = await p.call('POST', '/api/v1/destinations', {
    sourceId,
    name: 'Hook',
    enabled: true,
    settings,
  });
  expect(res.status).toBe(201);
  return res.body;
}
