import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import got, { TimeoutError, type Options as GotOptions } from 'got';
import { systemClock, type Clock } from '../../core/clock';
import { errorMessage } from '../../core/errors';
import { silentLogger, type Logger } from '../../observability/logger';
import { classifyErrorCode, retryAfterFor, type TransportResult } from './classify';
import { defaultUserAgent } from '../../http/user-agent';
import { createAddressPolicy, literalAddress, type AddressPolicy } from '../../security/address-policy';
import { guardedLookup, systemResolver, type Resolver } from './guarded-lookup';

/** The spec's answer deadline: connect, TLS, upload and response within 5 s. */
export const DEFAULT_TIMEOUT_MS = 5_000;
/** Concurrent sockets per origin (host:port); further requests queue in the agent. */
export const DEFAULT_MAX_SOCKETS_PER_ORIGIN = 50;
/** Response bytes read and dropped; past this the socket is closed rather than read further. */
export const DEFAULT_MAX_RESPONSE_BYTES = 65_536;
/**
 * Idle keep-alive sockets are closed after this long: below the 5 s keep-alive timeout of common
 * servers (Node's included), so we rarely write to a socket the receiver is closing.
 */
const IDLE_SOCKET_TIMEOUT_MS = 4_000;

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string | Buffer;
}

/**
 * One POST, as it ended. Receiver and network problems are values, never exceptions. `blocked`:
 * the SSRF guard refused the destination's address and no connection was opened; it carries no
 * address and no message, so nothing about an internal network can reach the attempt log.
 */
export type HttpAttempt =
  | { kind: 'response'; status: number; durationMs: number; retryAfterMs?: number }
  | { kind: 'error'; result: TransportResult; retriable: boolean; message: string; durationMs: number }
  | { kind: 'blocked'; durationMs: number };

export interface WebhookClient {
  /** The `User-Agent` requests should carry. */
  readonly userAgent: string;
  post(request: WebhookRequest): Promise<HttpAttempt>;
  /** Closes the pooled sockets. */
  close(): void;
}

export interface WebhookClientOptions {
  /** Deadline of a whole attempt. Default DEFAULT_TIMEOUT_MS (5 s). */
  timeoutMs?: number;
  /** Default `Hookline/<package.json version>`. */
  userAgent?: string;
  /** Default DEFAULT_MAX_SOCKETS_PER_ORIGIN (50). */
  maxSocketsPerOrigin?: number;
  /** Default DEFAULT_MAX_RESPONSE_BYTES (64 KiB). */
  maxResponseBytes?: number;
  /**
   * The SSRF guard: which addresses may be connected to. Default: the strict policy (no
   * allowed networks). Tests that deliver to 127.0.0.1 pass one that allows loopback.
   */
  addressPolicy?: AddressPolicy;
  /** Resolves host names before the guard checks them. Default: the system resolver. */
  resolve?: Resolver;
  logger?: Logger;
  clock?: Clock;
}

/**
 * The HTTP client of webhook deliveries. Create one per process: it owns the keep-alive pools.
 * Redirects are not followed, nothing is retried here (the retry topics do that), responses are
 * not decompressed, and TLS certificates are always verified: there is no insecure fallback.
 * Every connection passes the SSRF guard first: an IP literal is checked as it is; a name is
 * resolved, every address checked, and the socket connects only to those (`guardedLookup`).
 */
export function createWebhookClient(options: WebhookClientOptions = {}): WebhookClient {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const logger = options.logger ?? silentLogger();
  const clock = options.clock ?? systemClock;
  const policy = options.addressPolicy ?? createAddressPolicy();
  const resolve = options.resolve ?? systemResolver;
  const pool = { keepAlive: true, maxSockets: options.maxSocketsPerOrigin ?? DEFAULT_MAX_SOCKETS_PER_ORIGIN };
  // Certificates are verified on the agent AND per request: Node lets an agent's TLS options win
  // over a request's, and an explicit `true` also ignores NODE_TLS_REJECT_UNAUTHORIZED=0.
  const agent = {
    http: new http.Agent({ ...pool, timeout: IDLE_SOCKET_TIMEOUT_MS }),
    https: new https.Agent({ ...pool, timeout: IDLE_SOCKET_TIMEOUT_MS, rejectUnauthorized: true }),
  };
  const client = got.extend({
    agent,
    https: { rejectUnauthorized: true },
    followRedirect: false,
    throwHttpErrors: false,
    retry: { limit: 0 },
    timeout: { request: timeoutMs },
    decompress: false,
  });

  async function post(request: WebhookRequest): Promise<HttpAttempt> {
    const startedMs = clock.now();
    let answer: { status: number; retryAfter: string | undefined } | undefined;
    if (literalBlocked(request.url)) return { kind: 'blocked', durationMs: clock.now() - startedMs };
    let blocked = false;
    const lookup = guardedLookup({ policy, resolve, onBlocked: () => (blocked = true) });
    try {
      const stream = client.stream.post(request.url, {
        headers: request.headers,
        body: request.body,
        lookup: lookup as unknown as GotOptions['lookup'],
      });
      stream.once('response', (res: http.IncomingMessage) => {
        const retryAfter = res.headers['retry-after'];
        answer = {
          status: res.statusCode ?? 0,
          retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
        };
      });
      const complete = await discardBody(stream, maxResponseBytes);
      if (!complete) logger.debug({ maxResponseBytes }, 'webhook response body over the cap: socket dropped');
    } catch (err) {
      if (blocked) return { kind: 'blocked', durationMs: clock.now() - startedMs };
      // After the status line, a failing body changes nothing: the receiver has answered.
      if (answer === undefined) return transportFailure(err, request.url, clock.now() - startedMs);
    }
    const durationMs = clock.now() - startedMs;
    if (answer === undefined) {
      return { kind: 'error', result: 'connection', retriable: true, message: 'no response', durationMs };
    }
    const retryAfterMs = retryAfterFor(answer.status, answer.retryAfter, clock.now());
    return {
      kind: 'response',
      status: answer.status,
      durationMs,
      ...(retryAfterMs !== undefined && { retryAfterMs }),
    };
  }

  /** An IP literal never reaches `lookup` (Node connects to it directly): checked here. */
  function literalBlocked(url: string): boolean {
    let address: string | undefined;
    try {
      address = literalAddress(url);
    } catch {
      return false; // not a URL: got reports it as a failed attempt
    }
    return address !== undefined && !policy.check(address).allowed;
  }

  return {
    userAgent: options.userAgent ?? defaultUserAgent(),
    post,
    close() {
      agent.http.destroy();
      agent.https.destroy();
    },
  };
}

/** Reads the response body up to `maxBytes` and drops it. False when it stopped at the cap. */
async function discardBody(stream: Readable, maxBytes: number): Promise<boolean> {
  let bytes = 0;
  for await (const chunk of stream) {
    bytes += (chunk as Buffer).length;
    if (bytes > maxBytes) return false; // leaving the loop destroys the stream and its socket
  }
  return true;
}

function transportFailure(err: unknown, url: string, durationMs: number): HttpAttempt {
  const { result, retriable } = classifyErrorCode(err instanceof TimeoutError ? 'ETIMEDOUT' : errorCode(err));
  return { kind: 'error', result, retriable, message: withoutUrl(errorMessage(err), url), durationMs };
}

function errorCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string'
    ? err.code
    : undefined;
}

/** Error messages are logged and stored: never with the URL's path or query (they may hold tokens). */
function withoutUrl(message: string, url: string): string {
  return message.split(url).join('<url>');
}
