import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { Logger } from '../observability/logger';
import { trackArrivals } from './arrival';
import { ClientClosedRequestError, HttpError, sendJson, sendText } from './respond';
import { Router } from './router';

/** A readiness probe: resolves true when the dependency answers. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<boolean>;
}

export interface HttpServerOptions {
  host: string;
  port: number;
  router: Router;
  /** Serves `/metrics` when given. */
  metrics?: Registry;
  /** What `/metrics` serves instead of `metrics`' own text (several processes' aggregate). */
  metricsText?: () => Promise<string>;
  /** Serves `/readyz` when given. */
  readiness?: ReadinessCheck[];
  logger: Logger;
  /** Per-check deadline for /readyz. */
  readinessTimeoutMs?: number;
}

export interface HttpServer {
  server: Server;
  /** Resolves with the bound port (useful with port 0). */
  listen(): Promise<number>;
  close(): Promise<void>;
}

/**
 * An HTTP server of a process: health (`/livez` liveness, `/healthz` its older name; `/readyz`
 * readiness with one entry per dependency, when given checks), `/metrics` (when given a registry),
 * and whatever routes the roles add to the router. A process has one, plus one for the admin API alone when HOOKLINE_ADMIN_PORT
 * is set.
 */
export function createHttpServer(options: HttpServerOptions): HttpServer {
  const { router, metrics, logger } = options;
  const readinessTimeoutMs = options.readinessTimeoutMs ?? 2_000;

  const { readiness } = options;
  // Liveness: the process answers. Kubernetes probes /livez; /healthz stays for existing setups.
  for (const path of ['/livez', '/healthz']) {
    router.add('GET', path, ({ res }) => sendJson(res, 200, { status: 'ok' }));
  }
  if (readiness) {
    router.add('GET', '/readyz', async ({ res }) => {
      const results = await Promise.all(
        readiness.map(async (r) => [r.name, await withTimeout(r.check(), readinessTimeoutMs)] as const),
      );
      const checks = Object.fromEntries(results.map(([name, ok]) => [name, ok ? 'ok' : 'unavailable']));
      const ready = results.every(([, ok]) => ok);
      sendJson(res, ready ? 200 : 503, { status: ready ? 'ready' : 'not_ready', checks });
    });
  }
  if (metrics) {
    router.add('GET', '/metrics', async ({ res }) =>
      sendText(res, 200, await (options.metricsText ?? (() => metrics.metrics()))(), metrics.contentType),
    );
  }

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = req.method ?? 'GET';
    try {
      const match = router.match(method, url.pathname);
      if (match === undefined)
        throw new HttpError(404, 'not_found', `no route for ${method} ${url.pathname}`);
      if (match === 'methodNotAllowed') {
        throw new HttpError(405, 'method_not_allowed', `${method} is not allowed on ${url.pathname}`);
      }
      await match.handler({ req, res, url, params: match.params });
    } catch (err) {
      if (err instanceof ClientClosedRequestError) {
        // Not a failure of this server: the client went away (a timeout, a crash, a cancelled call).
        logger.debug({ method, path: url.pathname }, 'client closed the request before its body ended');
        res.destroy();
        return;
      }
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (err instanceof HttpError) {
        if (err.status === 413) res.setHeader('connection', 'close');
        sendJson(res, err.status, { error: err.code, message: err.message, ...err.extra }, err.headers);
      } else {
        logger.error({ err, method, path: url.pathname }, 'request failed');
        sendJson(res, 500, { error: 'internal', message: 'internal error' });
      }
    }
  });
  trackArrivals(server);
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;

  return {
    server,
    listen: () =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(options.port, options.host, () => {
          server.off('error', reject);
          resolve((server.address() as AddressInfo).port);
        });
      }),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

async function withTimeout(check: Promise<boolean>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      check.catch(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
