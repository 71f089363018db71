import { randomBytes } from 'node:crypto';
import { startApp, type App } from '../../src/compose/index';
import { loadConfig } from '../../src/config/config';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';
/** HOOKLINE_SECRETS_KEY of every test process (32 bytes, base64); a test may pass its own. */
export const TEST_SECRETS_KEY = Buffer.from('hookline-test-secrets-key-32byte').toString('base64');

export interface TestApp {
  app: App;
  /** Topic prefix of this test's private set of topics. */
  prefix: string;
  baseUrl: string;
  /** Where the admin API answers: baseUrl, or the admin port's URL when HOOKLINE_ADMIN_PORT is set. */
  adminUrl: string;
  /** Calls the admin API with the test token; returns status and parsed JSON body. */
  admin<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: T }>;
  stop(): Promise<void>;
}

export function clusterFromEnv() {
  const brokers = process.env.KAFKA_BROKERS;
  const registry = process.env.SCHEMA_REGISTRY_URL;
  if (!brokers || !registry)
    throw new Error('KAFKA_BROKERS and SCHEMA_REGISTRY_URL must be set (the jest global setup does it)');
  return { kafkaBrokers: brokers.split(','), schemaRegistryUrl: registry };
}

export function uniquePrefix(): string {
  return `t${randomBytes(5).toString('hex')}`;
}

/**
 * The SSRF guard's exceptions tests need: receivers listen on 127.0.0.1, and `localhost` may
 * also resolve to ::1 (every address a name resolves to must be allowed).
 */
export const LOOPBACK_NETWORKS = '127.0.0.0/8,::1/128';

/**
 * Starts a whole Hookline process in the test, on the real cluster, with its own topic prefix
 * (so tests sharing a cluster never see each other's records), HTTP on 127.0.0.1:0. Loopback is
 * allowed by the SSRF guard (LOOPBACK_NETWORKS) unless `env` sets HOOKLINE_ALLOWED_NETWORKS.
 */
export async function startTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const prefix = env.HOOKLINE_TOPIC_PREFIX ?? uniquePrefix();
  const cluster = clusterFromEnv();
  const config = loadConfig({
    KAFKA_BROKERS: cluster.kafkaBrokers.join(','),
    SCHEMA_REGISTRY_URL: cluster.schemaRegistryUrl,
    HOOKLINE_HTTP_PORT: '0',
    HOOKLINE_HTTP_HOST: '127.0.0.1',
    HOOKLINE_ADMIN_TOKEN: ADMIN_TOKEN,
    HOOKLINE_SECRETS_KEY: TEST_SECRETS_KEY,
    HOOKLINE_TOPIC_PARTITIONS: '3',
    HOOKLINE_LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    HOOKLINE_ALLOWED_NETWORKS: LOOPBACK_NETWORKS,
    ...env,
    HOOKLINE_TOPIC_PREFIX: prefix,
  });
  const app = await startApp({ config, cluster });
  const baseUrl = `http://127.0.0.1:${app.httpPort}`;
  const adminUrl = app.adminPort === undefined ? baseUrl : `http://127.0.0.1:${app.adminPort}`;
  return {
    app,
    prefix,
    baseUrl,
    adminUrl,
    admin: async <T>(method: string, path: string, body?: unknown) => {
      const res = await fetch(`${adminUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
    },
    stop: () => app.stop(),
  };
}
