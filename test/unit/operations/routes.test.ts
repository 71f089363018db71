import { Registry } from 'prom-client';
import type { CatalogView } from '../../../src/records/catalog-model';
import { createHttpServer, type HttpServer } from '../../../src/http/server';
import { Router } from '../../../src/http/router';
import { silentLogger } from '../../../src/observability/logger';
import { RegistryUnavailableError } from '../../../src/core/errors';
import { AttemptLog } from '../../../src/operations/attempts/log';
import type { DlqIndex } from '../../../src/operations/dead-letters/topic-index';
import type { Redriver } from '../../../src/operations/redrive';
import type { Replays } from '../../../src/operations/replay';
import { mountAdminApi } from '../../../src/admin-api';
import { toOperationsHttpError } from '../../../src/operations/errors';
import { operationsRoutes } from '../../../src/operations/routes';
import { at, deadTask, newStore, taskRecord } from './fixtures';

/** The operations routes over real HTTP, with in-memory components. */
describe('operations routes', () => {
  let server: HttpServer;
  let baseUrl: string;
  let ready = false;
  const redrives: unknown[] = [];

  const attempts = new AttemptLog({
    perDestination: 10,
    maxBytes: 1 << 20,
    decode: () => Promise.reject(new RegistryUnavailableError('schema registry unreachable')),
  });

  beforeAll(async () => {
    const router = new Router();
    const state = newStore();
    state.apply(at(0, 0), taskRecord(deadTask()));
    const dlq: DlqIndex = { state, ready: () => ready, stop: async () => undefined };
    const redriver = {
      redrive: async (request: unknown) => {
        redrives.push(request);
        return { redriven: 0, taskIds: [], skipped: [] };
      },
    } as unknown as Redriver;
    const routes = operationsRoutes({
      dlq,
      attempts,
      redriver,
      replays: {} as Replays,
      catalog: { destination: () => undefined } as unknown as CatalogView,
    });
    mountAdminApi({
      router,
      adminToken: 'secret-token',
      groups: [{ routes, mapError: toOperationsHttpError }],
      logger: silentLogger(),
    });
    server = createHttpServer({
      host: '127.0.0.1',
      port: 0,
      router,
      metrics: new Registry(),
      readiness: [],
      logger: silentLogger(),
    });
    baseUrl = `http://127.0.0.1:${await server.listen()}`;
  });

  afterAll(() => server.close());

  const call = async (method: string, path: string, options: { token?: string; body?: string } = {}) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${options.token ?? 'secret-token'}` },
      body: options.body,
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
  };

  it('asks for the admin token', async () => {
    const res = await call('GET', '/api/v1/dead-letters', { token: 'wrong' });
    expect(res).toMatchObject({ status: 401, body: { error: 'unauthorized' } });
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="hookline-admin"');
  });

  it('answers 503 when the attempts asked for cannot be decoded now (registry away)', async () => {
    attempts.addRecord('dst_kept', Buffer.from('an attempt record'));
    expect(await call('GET', '/api/v1/destinations/dst_kept/attempts')).toMatchObject({
      status: 503,
      body: { error: 'registry_unavailable' },
    });
  });

  it('answers 503 dlq_index_loading until the dead-letter topic is read, then lists', async () => {
    ready = false;
    expect(await call('GET', '/api/v1/dead-letters')).toMatchObject({
      status: 503,
      body: { error: 'dlq_index_loading' },
    });
    ready = true;
    expect(await call('GET', '/api/v1/dead-letters')).toMatchObject({ status: 200, body: { total: 1 } });
  });

  it('passes redrive filters on as times in ms, and refuses bad JSON', async () => {
    ready = true;
    const body = JSON.stringify({ destinationId: 'dst_a', since: '1970-01-01T00:00:01Z' });
    expect(await call('POST', '/api/v1/dead-letters/redrive', { body })).toMatchObject({ status: 200 });
    expect(redrives).toEqual([
      { destinationId: 'dst_a', sinceMs: 1_000, untilMs: undefined, taskIds: undefined },
    ]);
    expect(await call('POST', '/api/v1/dead-letters/redrive', { body: '{' })).toMatchObject({
      status: 400,
      body: { error: 'invalid_json' },
    });
  });
});
