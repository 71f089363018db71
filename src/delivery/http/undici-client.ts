import { Agent } from 'undici';
import type { Readable } from 'node:stream';
import { systemClock } from '../../core/clock';
import { errorMessage } from '../../core/errors';
import { silentLogger } from '../../observability/logger';
import { classifyErrorCode, retryAfterFor } from './classify';
import { defaultUserAgent } from '../../http/user-agent';
import { createAddressPolicy, literalAddress } from '../../security/address-policy';
import { guardedLookup, systemResolver } from './guarded-lookup';
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_MAX_SOCKETS_PER_ORIGIN,
  DEFAULT_TIMEOUT_MS,
  type HttpAttempt,
  type WebhookClient,
  type WebhookClientOptions,
  type WebhookRequest,
} from './client';

const IDLE_SOCKET_TIMEOUT_MS = 4_000;

export function createUndiciWebhookClient(options: WebhookClientOptions = {}): WebhookClient {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const logger = options.logger ?? silentLogger();
  const clock = options.clock ?? systemClock;
  const policy = options.addressPolicy ?? createAddressPolicy();
  const resolve = options.resolve ?? systemResolver;
  const agent = new Agent({
    connections: options.maxSocketsPerOrigin ?? DEFAULT_MAX_SOCKETS_PER_ORIGIN,
    keepAliveTimeout: IDLE_SOCKET_TIMEOUT_MS,
    keepAliveMaxTimeout: IDLE_SOCKET_TIMEOUT_MS,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connect: {
      timeout: timeoutMs,
      rejectUnauthorized: true,
      lookup: guardedLookup({ policy, resolve, onBlocked: () => undefined }),
    },
  });

  async function post(request: WebhookRequest): Promise<HttpAttempt> {
    const startedMs = clock.now();
    let url: URL;
    try {
      url = new URL(request.url);
    } catch (err) {
      return transportFailure(err, request.url, clock.now() - startedMs, false);
    }
    if (literalBlocked(url)) return { kind: 'blocked', durationMs: clock.now() - startedMs };
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    let answer: { status: number; retryAfter: string | undefined } | undefined;
    try {
      const res = await agent.request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: 'POST',
        headers: request.headers,
        body: request.body,
        signal: controller.signal,
      });
      const retryAfter = res.headers['retry-after'];
      answer = { status: res.statusCode, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter };
      const complete = await discardBody(res.body, maxResponseBytes);
      if (!complete) logger.debug({ maxResponseBytes }, 'webhook response body over the cap: socket dropped');
    } catch (err) {
      if (errorCode(err) === 'EBLOCKEDADDRESS')
        return { kind: 'blocked', durationMs: clock.now() - startedMs };
      if (answer === undefined) return transportFailure(err, request.url, clock.now() - startedMs, timedOut);
    } finally {
      clearTimeout(timer);
    }
    const durationMs = clock.now() - startedMs;
    const retryAfterMs = retryAfterFor(answer.status, answer.retryAfter, clock.now());
    return {
      kind: 'response',
      status: answer.status,
      durationMs,
      ...(retryAfterMs !== undefined && { retryAfterMs }),
    };
  }

  function literalBlocked(url: URL): boolean {
    const address = literalAddress(url.href);
    return address !== undefined && !policy.check(address).allowed;
  }

  return {
    userAgent: options.userAgent ?? defaultUserAgent(),
    post,
    close() {
      void agent.destroy().catch(() => undefined);
    },
  };
}

async function discardBody(stream: Readable, maxBytes: number): Promise<boolean> {
  let bytes = 0;
  for await (const chunk of stream) {
    bytes += (chunk as Buffer).length;
    if (bytes > maxBytes) return false;
  }
  return true;
}

const UNDICI_TIMEOUTS = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

function transportFailure(err: unknown, url: string, durationMs: number, timedOut: boolean): HttpAttempt {
  const code = errorCode(err);
  const { result, retriable } = classifyErrorCode(
    timedOut || (code !== undefined && UNDICI_TIMEOUTS.has(code)) ? 'ETIMEDOUT' : code,
  );
  const message = timedOut ? `timeout after ${durationMs} ms` : errorMessage(err);
  return { kind: 'error', result, retriable, message: message.split(url).join('<url>'), durationMs };
}

function errorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  const cause = (err as { cause?: { code?: unknown } } | null)?.cause?.code;
  return typeof cause === 'string' ? cause : undefined;
}
