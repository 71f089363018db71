import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { startApp, type App } from '../../src/compose';
import { loadConfig } from '../../src/config/config';
import { createLogger } from '../../src/observability/logger';
import { sampleEvents } from '../fixtures/events';
import { ADMIN_TOKEN, TEST_SECRETS_KEY, clusterFromEnv, uniquePrefix } from '../support/app';
import { eventually } from '../support/eventually';

/**
 * The catalog on a real Kafka + schema registry: the admin API of one process, and what other
 * processes (started before or after a change) see of it. Each test uses its own topic prefix.
 */
const SHARED_SECRET = `whsec_${randomBytes(12).toString('hex')}`;

/** A parsed JSON answer; tests read into it freely. */
type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

interface Response {
  status: number;
  body: Json;
}

interface Process {
  app: App;
  /** Everything the process logged, to check that no secret is ever written there. */
  logs: string[];
  /** Calls the HTTP API; `token` null sends no Authorization header. */
  call(method: string, path: string, body?: unknown, token?: string | null): Promise<Response>;
}

const running: Process[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.app.stop()));
});

/** A whole process on the real cluster, logging into memory (unlike support/app's startTestApp). */
async function startProcess(prefix: string): Promise<Process> {
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

const hook = (url: string, headers?: Record<string, string>) => (headers ? { url, headers } : { url });

async function createSource(p: Process, name = 'Website'): Promise<Json> {
  const res = await p.call('POST', '/api/v1/sources', { name });
  expect(res.status).toBe(201);
  return res.body;
}

async function createDestination(
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

describe('catalog admin API', () => {
  it('creates, reads, updates and deletes, each read seeing the write just made', async () => {
    const a = await startProcess(uniquePrefix());

    const source = await createSource(a);
    expect(source).toMatchObject({
      name: 'Website',
      enabled: true,
      writeKeyPrefix: source.writeKey.slice(0, 6),
    });
    expect(source.id).toMatch(/^src_/);
    expect(source.writeKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const got = await a.call('GET', `/api/v1/sources/${source.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ ...source, writeKey: undefined });
    expect(got.body.writeKey).toBeUndefined();
    expect(a.app.parts.catalog.sourceByWriteKey(source.writeKey)?.id).toBe(source.id);

    const settings = {
      sharedSecret: SHARED_SECRET,
      webhooks: [
        hook('https://example.com/in', { 'X-Api-Key': 'k1' }),
        hook('http://fallback.example.com:8080/in'),
      ],
    };
    const destination = await createDestination(a, source.id, settings);
    expect(destination.settings).toEqual({
      sharedSecretSet: true,
      standardWebhooksSecretSet: false,
      webhooks: [
        // circuit: this process delivers, and has not called these URLs yet; header values are
        // write-only, like the secret: reads show the names only.
        {
          url: 'https://example.com/in',
          headers: { 'X-Api-Key': '[redacted]' },
          circuit: { state: 'closed' },
        },
        { url: 'http://fallback.example.com:8080/in', headers: {}, circuit: { state: 'closed' } },
      ],
    });
    expect((await a.call('GET', `/api/v1/destinations/${destination.id}`)).body).toEqual(destination);
    const stored = a.app.parts.catalog.destinationsOfSource(source.id)[0]!.settings.sharedSecret!;
    expect(stored.startsWith('hlenc:v1:')).toBe(true);
    expect(a.app.parts.config.secrets.keyring!.open(stored)).toBe(SHARED_SECRET);

    const patched = await a.call('PATCH', `/api/v1/destinations/${destination.id}`, {
      enabled: false,
      settings: { sharedSecret: null },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ enabled: false, settings: { sharedSecretSet: false } });
    expect((await a.call('GET', `/api/v1/destinations/${destination.id}`)).body).toEqual(patched.body);

    const renamed = await a.call('PATCH', `/api/v1/sources/${source.id}`, { name: 'Shop' });
    expect(renamed.body.name).toBe('Shop');
    expect((await a.call('GET', '/api/v1/sources')).body.sources).toEqual([renamed.body]);
    expect((await a.call('GET', `/api/v1/destinations?sourceId=${source.id}`)).body.destinations).toEqual([
      patched.body,
    ]);

    expect((await a.call('DELETE', `/api/v1/destinations/${destination.id}`)).status).toBe(204);
    expect((await a.call('GET', `/api/v1/destinations/${destination.id}`)).status).toBe(404);
    expect((await a.call('DELETE', `/api/v1/sources/${source.id}`)).status).toBe(204);
    expect((await a.call('GET', `/api/v1/sources/${source.id}`)).body).toMatchObject({
      error: 'source_not_found',
    });
    expect(a.app.parts.catalog.sourceByWriteKey(source.writeKey)).toBeUndefined();

    // Secrets never appear in logs or metrics.
    const metrics = await fetch(`http://127.0.0.1:${a.app.httpPort}/metrics`).then((r) => r.text());
    for (const secret of [SHARED_SECRET, source.writeKey, ADMIN_TOKEN]) {
      expect(a.logs.join('')).not.toContain(secret);
      expect(metrics).not.toContain(secret);
    }
    expect(metrics).toContain('hookline_catalog_entities');
  });

  it('answers 401 without the admin token, and serves the OpenAPI document publicly', async () => {
    const a = await startProcess(uniquePrefix());
    for (const [method, path] of [
      ['GET', '/api/v1/sources'],
      ['POST', '/api/v1/sources'],
      ['GET', '/api/v1/destinations/dst_x'],
      ['DELETE', '/api/v1/sources/src_x'],
    ] as const) {
      for (const token of [null, 'wrong-token', `${ADMIN_TOKEN}x`]) {
        const res = await a.call(method, path, method === 'POST' ? { name: 'x' } : undefined, token);
        expect([method, path, token, res.status, res.body.error]).toEqual([
          method,
          path,
          token,
          401,
          'unauthorized',
        ]);
      }
    }
    expect((await a.call('GET', '/api/v1/sources')).body).toEqual({ sources: [] });

    const openapi = await a.call('GET', '/api/v1/openapi.json', undefined, null);
    expect(openapi.status).toBe(200);
    expect(openapi.body.openapi).toBe('3.1.0');
    expect(Object.keys(openapi.body.paths)).toContain('/api/v1/destinations/{id}');
  });

  it('refuses invalid requests with 4xx JSON errors that never echo a secret', async () => {
    const a = await startProcess(uniquePrefix());
    const source = await createSource(a);
    const post = (settings: object, sourceId = source.id) =>
      a.call('POST', '/api/v1/destinations', { sourceId, name: 'Hook', settings });
    const six = Array.from({ length: 6 }, (_, i) => hook(`https://example.com/${i}`));

    const cases: [string, Promise<Response>, number, string, string?][] = [
      ['zero URLs', post({ webhooks: [] }), 400, 'validation_failed', 'too_small'],
      ['six URLs', post({ webhooks: six }), 400, 'validation_failed', 'too_big'],
      [
        'ftp URL',
        post({ webhooks: [hook('ftp://example.com')] }),
        400,
        'validation_failed',
        'webhook_url_scheme',
      ],
      [
        'CRLF header',
        post({ webhooks: [hook('https://e.com', { 'X-A': `${SHARED_SECRET}\r\nX: y` })] }),
        400,
        'validation_failed',
        'header_value_invalid',
      ],
      [
        'signature override',
        post({ webhooks: [hook('https://e.com', { 'x-signature': SHARED_SECRET })] }),
        400,
        'validation_failed',
        'header_reserved',
      ],
      ['unknown source', post({ webhooks: [hook('https://e.com')] }, 'src_missing'), 422, 'unknown_source'],
      ['bad JSON', a.call('POST', '/api/v1/sources', '{"name":'), 400, 'invalid_json'],
      [
        'unknown source id',
        a.call('PATCH', '/api/v1/sources/src_missing', { name: 'x' }),
        404,
        'source_not_found',
      ],
      [
        'empty patch',
        a.call('PATCH', `/api/v1/sources/${source.id}`, {}),
        400,
        'validation_failed',
        'empty_patch',
      ],
    ];
    for (const [name, response, status, error, issueCode] of cases) {
      const res = await response;
      expect([name, res.status, res.body.error]).toEqual([name, status, error]);
      expect(typeof res.body.message).toBe('string');
      if (issueCode) expect([name, res.body.issues[0].code]).toEqual([name, issueCode]);
      expect(JSON.stringify(res.body)).not.toContain(SHARED_SECRET);
    }
    expect((await a.call('GET', '/api/v1/destinations')).body.destinations).toEqual([]);
  });

  it('refuses to delete a source with destinations unless cascade=true', async () => {
    const a = await startProcess(uniquePrefix());
    const source = await createSource(a);
    const destination = await createDestination(a, source.id);

    const refused = await a.call('DELETE', `/api/v1/sources/${source.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      error: 'source_has_destinations',
      destinationIds: [destination.id],
    });

    expect((await a.call('DELETE', `/api/v1/sources/${source.id}?cascade=true`)).status).toBe(204);
    expect((await a.call('GET', `/api/v1/destinations/${destination.id}`)).status).toBe(404);
    expect((await a.call('GET', `/api/v1/sources/${source.id}`)).status).toBe(404);
  });
});

describe('catalog across processes', () => {
  it('a process started after a change sees it once ready', async () => {
    const prefix = uniquePrefix();
    const a = await startProcess(prefix);
    const source = await createSource(a);
    const destination = await createDestination(a, source.id, {
      sharedSecret: SHARED_SECRET,
      webhooks: [hook('https://example.com/in')],
    });
    const removed = await createSource(a, 'Removed');
    expect((await a.call('DELETE', `/api/v1/sources/${removed.id}`)).status).toBe(204);

    const b = await startProcess(prefix);
    // Ready means caught up: no polling needed.
    expect((await b.call('GET', `/api/v1/sources/${source.id}`)).body).toEqual({
      ...source,
      writeKey: undefined,
    });
    expect((await b.call('GET', `/api/v1/destinations/${destination.id}`)).body).toEqual(destination);
    expect((await b.call('GET', `/api/v1/sources/${removed.id}`)).status).toBe(404);
    expect(b.app.parts.catalog.sourceByWriteKey(source.writeKey)?.id).toBe(source.id);
    const stored = b.app.parts.catalog.destination(destination.id)!.settings.sharedSecret!;
    expect(b.app.parts.config.secrets.keyring!.open(stored)).toBe(SHARED_SECRET);
  });

  it('a process already running follows changes made through another, tombstones included', async () => {
    const prefix = uniquePrefix();
    const [a, b] = await Promise.all([startProcess(prefix), startProcess(prefix)]);
    const seenByB = (path: string, check: (res: Response) => boolean) =>
      eventually(async () => check(await b.call('GET', path)), { what: `process B: ${path}` });

    const source = await createSource(a);
    const destination = await createDestination(a, source.id);
    await seenByB(`/api/v1/destinations/${destination.id}`, (res) => res.status === 200);
    expect(b.app.parts.catalog.sourceByWriteKey(source.writeKey)?.id).toBe(source.id);

    // A change made through B reaches A too.
    await b.call('PATCH', `/api/v1/destinations/${destination.id}`, { name: 'Renamed by B' });
    await eventually(
      async () =>
        (await a.call('GET', `/api/v1/destinations/${destination.id}`)).body.name === 'Renamed by B',
      { what: 'process A sees the rename' },
    );

    expect((await a.call('DELETE', `/api/v1/sources/${source.id}?cascade=true`)).status).toBe(204);
    expect((await a.call('GET', `/api/v1/sources/${source.id}`)).status).toBe(404);
    await seenByB(`/api/v1/sources/${source.id}`, (res) => res.status === 404);
    await seenByB(`/api/v1/destinations/${destination.id}`, (res) => res.status === 404);
    expect(b.app.parts.catalog.destinationsOfSource(source.id)).toEqual([]);

    const c = await startProcess(prefix);
    expect((await c.call('GET', '/api/v1/sources')).body).toEqual({ sources: [] });
    expect((await c.call('GET', '/api/v1/destinations')).body).toEqual({ destinations: [] });
  });

  it('skips an undecodable catalog record without stopping, at start or live', async () => {
    const prefix = uniquePrefix();
    const a = await startProcess(prefix);
    await createSource(a, 'Before');

    const producer = a.app.parts.kafka.producer();
    await producer.connect();
    try {
      await producer.send({
        topic: a.app.parts.topics.catalog,
        acks: -1,
        messages: [
          { key: 'src_garbage', value: Buffer.from('not avro at all') },
          { key: 'src_unknown_schema', value: Buffer.from([0, 0x7f, 0xff, 0xff, 0xf0, 2, 3]) },
          { key: 'src_not_catalog', value: a.app.parts.events.encode(sampleEvents()[0]!) },
        ],
      });
    } finally {
      await producer.disconnect();
    }
    const after = await createSource(a, 'After');
    expect((await a.call('GET', `/api/v1/sources/${after.id}`)).status).toBe(200);

    const b = await startProcess(prefix);
    const names = (await b.call('GET', '/api/v1/sources')).body.sources.map((s: Json) => s.name);
    expect(names).toEqual(['Before', 'After']);
    // A skipped them live (its next write waited for a later offset), B while replaying.
    const skips = (p: Process) =>
      p.logs.filter((line) => line.includes('skipping undecodable catalog record'));
    expect(skips(a)).toHaveLength(3);
    expect(skips(b)).toHaveLength(3);
    expect(skips(b).join('')).toContain('src_unknown_schema');
  });
});
