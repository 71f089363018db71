import { connect } from 'node:net';
import { ClientClosedRequestError, readBody, sendJson } from '../../../src/http/respond';
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

/** A client gone before its body ended is not a server failure (it was logged as one, answered 500). */
describe('a request whose client closes the connection mid-body', () => {
  it('is a ClientClosedRequestError (499), logged at debug level, not as a failed request', async () => {
    const logger = createLogger({ level: 'silent' });
    const debug = jest.spyOn(logger, 'debug');
    const error = jest.spyOn(logger, 'error');
    let thrown: unknown;
    let bodyRead!: () => void;
    const handled = new Promise<void>((resolve) => (bodyRead = resolve));
    let enter!: () => void;
    const entered = new Promise<void>((resolve) => (enter = resolve));
    const router = new Router().add('POST', '/echo', async ({ req, res }) => {
      enter();
      try {
        sendJson(res, 200, { bytes: (await readBody(req, 1_000)).length });
      } catch (err) {
        thrown = err;
        throw err;
      } finally {
        setImmediate(bodyRead); // after the server's own handling
      }
    });
    const server = createHttpServer({ host: '127.0.0.1', port: 0, router, logger });
    const port = await server.listen();
    try {
      const socket = connect(port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"partial":');
      await entered; // the handler is reading the body
      socket.destroy();
      await handled;
      expect(thrown).toBeInstanceOf(ClientClosedRequestError);
      expect(thrown).toMatchObject({ status: 499 });
      expect(error).not.toHaveBeenCalled();
      expect(debug).toHaveBeenCalledWith(
        { method: 'POST', path: '/echo' },
        'client closed the request before its body ended',
      );
    } finally {
      await server.close();
    }
  });
});
