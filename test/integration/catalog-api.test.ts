import { ADMIN_TOKEN, uniquePrefix } from '../support/app';
import {
  SHARED_SECRET,
  createDestination,
  createSource,
  hook,
  startProcess,
  stopProcessesAfterEach,
  type ApiResponse,
} from '../support/catalog-process';

/** The catalog admin API of one process on a real Kafka + schema registry. */
stopProcessesAfterEach();

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

    const cases: [string, Promise<ApiResponse>, number, string, string?][] = [
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
        'credentials in the URL',
        post({ webhooks: [hook(`https://user:${SHARED_SECRET}@e.com/in`)] }),
        400,
        'validation_failed',
        'webhook_url_credentials',
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
      [
        'Expect header (managed by the HTTP client)',
        post({ webhooks: [hook('https://e.com', { Expect: SHARED_SECRET })] }),
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
