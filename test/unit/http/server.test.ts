import { createHttpServer, type HttpServer } from '../../../src/http/server';
import { createLogger } from '../../../src/observability/logger';
import { Router } from '../../../src/http/router';

/** The health routes every Hookline process serves (Kubernetes probes them; see helm/hookline). */
describe('health routes', () => {
  let server: HttpServer;
  let base: string;
  let ready = true;

  beforeAll(async () => {
    server = createHttpServer({
      host: '127.0.0.1',
      port: 0,
      router: new Router(),
      readiness: [{ name: 'kafka', check: async () => ready }],
      logger: createLogger({ level: 'silent' }),
    });
    base = `http://127.0.0.1:${await server.listen()}`;
  });
  afterAll(() => server.close());

  it.each(['/livez', '/healthz'])('%s answers 200 {status: ok}', async (path) => {
    const res = await fetch(`${base}${path}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('/livez stays 200 while /readyz answers 503 (liveness ignores dependencies)', async () => {
    ready = false;
    try {
      expect((await fetch(`${base}/readyz`)).status).toBe(503);
      expect((await fetch(`${base}/livez`)).status).toBe(200);
    } finally {
      ready = true;
    }
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
  });
});
