import { buildConnector, type Dispatcher } from 'undici';
import { systemClock, type Clock } from '../../core/clock';
import { errorMessage } from '../../core/errors';
import { silentLogger, type Logger } from '../../observability/logger';
import { classifyErrorCode, retryAfterFor, type TransportResult } from './classify';
import { defaultUserAgent } from '../../http/user-agent';
import { createAddressPolicy, type AddressPolicy } from '../../security/address-policy';
import { Targets, type Target } from './targets';
import { DiscardingHandler, type RequestEnd } from './discarding-handler';
import { DestinationPools } from './pools';
import { BlockedAddressError, guardedLookup, systemResolver, type Resolver } from './guarded-lookup';

/** The spec's answer deadline: connect, TLS, upload and response within 5 s. */
export const DEFAULT_TIMEOUT_MS = 5_000;
/**
 * Sockets per destination and origin (host:port): its requests in flight there. One more waits
 * for a socket, its deadline not yet started, for at most the deadline, then is not sent.
 */
export const DEFAULT_MAX_SOCKETS_PER_ORIGIN = 50;
/** Response bytes read and dropped; past this the socket is closed rather than read further. */
export const DEFAULT_MAX_RESPONSE_BYTES = 65_536;
/**
 * Idle keep-alive sockets are closed after this long: below the 5 s keep-alive timeout of common
 * servers (Node's included), so we rarely write to a socket the receiver is closing.
 */
const IDLE_SOCKET_TIMEOUT_MS = 4_000;

export interface WebhookRequest {
  /**
   * Whose socket pool carries the request: requests of one destination share sockets, and never
   * wait for another destination's. Default '': one pool per origin for requests without one.
   */
  destinationId?: string;
  url: string;
  headers: Record<string, string>;
  body: string | Buffer;
}

/**
 * One POST, as it ended. Receiver and network problems are values, never exceptions. `blocked`:
 * the SSRF guard refused the destination's address and no connection was opened; it carries no
 * address and no message, so nothing about an internal network can reach the attempt log.
 * `unsent`: no socket of the destination's pool freed within the deadline, so the request was
 * never started; a local shortage, not the receiver's failure (retriable, and no circuit counts it).
 */
export type HttpAttempt =
  | { kind: 'response'; status: number; durationMs: number; retryAfterMs?: number }
  | { kind: 'error'; result: TransportResult; retriable: boolean; message: string; durationMs: number }
  | { kind: 'blocked'; durationMs: number }
  | { kind: 'unsent'; message: string; durationMs: number };

export interface WebhookClient {
  /** The `User-Agent` requests should carry. */
  readonly userAgent: string;
  post(request: WebhookRequest): Promise<HttpAttempt>;
  /** Closes the pooled sockets. */
  close(): void;
}

export interface WebhookClientOptions {
  /**
   * Deadline of an attempt from when its pool takes it (connect, TLS, upload, answer); also how
   * long it may wait for a free socket first. Default DEFAULT_TIMEOUT_MS (5 s).
   */
  timeoutMs?: number;
  /** Default `Hookline/<package.json version>`. */
  userAgent?: string;
  /** Sockets per destination and origin. Default DEFAULT_MAX_SOCKETS_PER_ORIGIN (50). */
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
 * The HTTP client of webhook deliveries (undici: bench/micro/http-client.ts measured got 11 at 3.4×
 * the CPU per request of raw node:http, undici at 1.0×, and 0.35× through `Agent.dispatch` with
 * `DiscardingHandler` rather than `agent.request`; undici 8: docs/adr/0003-node-runtime.md). Create one per process: it owns the
 * keep-alive pools, one per destination and origin (see pools.ts). Redirects are not followed
 * (undici's core never does), nothing is retried here (the retry topics do that), responses are
 * not decompressed, and TLS certificates are always verified: there is no insecure fallback. Every connection passes the SSRF guard first:
 * an IP literal is checked as it is; a name is resolved, every address checked, and the socket
 * connects only to those (`guardedLookup` as the connector's `lookup`).
 */
export function createWebhookClient(options: WebhookClientOptions = {}): WebhookClient {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const logger = options.logger ?? silentLogger();
  const clock = options.clock ?? systemClock;
  const policy = options.addressPolicy ?? createAddressPolicy();
  // One connector for every pool: the same SSRF guard and TLS options, one TLS session cache.
  const connect = buildConnector({
    timeout: timeoutMs,
    // Explicitly true: also ignores NODE_TLS_REJECT_UNAUTHORIZED=0.
    rejectUnauthorized: true,
    // A refusal fails the connection with EBLOCKEDADDRESS, which `post` reports as `blocked`.
    lookup: guardedLookup({ policy, resolve: options.resolve ?? systemResolver, onBlocked: () => {} }),
  });
  const pools = new DestinationPools({
    connections: options.maxSocketsPerOrigin ?? DEFAULT_MAX_SOCKETS_PER_ORIGIN,
    maxWaitMs: timeoutMs,
    poolOptions: {
      keepAliveTimeout: IDLE_SOCKET_TIMEOUT_MS,
      keepAliveMaxTimeout: IDLE_SOCKET_TIMEOUT_MS,
      // The attempt's deadline is the abort timer in `post`; these only bound each phase too.
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      // HTTP/1.1 only, as before undici 8 (which negotiates HTTP/2 over TLS by default): one
      // request per socket, so `maxSocketsPerOrigin` is what a receiver sees in flight.
      allowH2: false,
      connect,
    },
  });

  const targets = new Targets(policy);

  function post(request: WebhookRequest): Promise<HttpAttempt> {
    const startedMs = clock.now();
    const elapsed = () => clock.now() - startedMs;
    let target: Target;
    try {
      target = targets.of(request.url);
    } catch (err) {
      return Promise.resolve(transportFailure(err, request.url, elapsed(), undefined));
    }
    if (target.blocked) return Promise.resolve({ kind: 'blocked', durationMs: elapsed() });
    return new Promise<HttpAttempt>((resolve) => {
      const send = (pool: Dispatcher, release: () => void) => {
        // One deadline from when the pool takes the request: connect, TLS, upload, response.
        let timedOut = false;
        const handler = new DiscardingHandler(maxResponseBytes, (end) => {
          clearTimeout(timer);
          release();
          resolve(attemptOf(end, request.url, elapsed(), timedOut ? timeoutMs : undefined));
        });
        const timer = setTimeout(() => {
          timedOut = true;
          handler.abort(new DeadlineExceededError(timeoutMs));
        }, timeoutMs);
        pool.dispatch(
          {
            origin: target.origin,
            path: target.path,
            method: 'POST',
            headers: request.headers,
            body: request.body,
          },
          handler,
        );
      };
      const unsent = () =>
        resolve({
          kind: 'unsent',
          message: `Not sent: no free connection within ${timeoutMs} ms`,
          durationMs: elapsed(),
        });
      pools.acquire(request.destinationId ?? '', target.origin, send, unsent);
    });
  }

  function attemptOf(
    end: RequestEnd,
    url: string,
    durationMs: number,
    deadlineMs: number | undefined,
  ): HttpAttempt {
    if (!end.answered) {
      if (errorCode(end.error) === BLOCKED_CODE) return { kind: 'blocked', durationMs };
      return transportFailure(end.error, url, durationMs, deadlineMs);
    }
    if (end.bodyOverCap)
      logger.debug({ maxResponseBytes }, 'webhook response body over the cap: socket dropped');
    const retryAfterMs = retryAfterFor(end.status, end.retryAfter, clock.now());
    return {
      kind: 'response',
      status: end.status,
      durationMs,
      ...(retryAfterMs !== undefined && { retryAfterMs }),
    };
  }

  return {
    userAgent: options.userAgent ?? defaultUserAgent(),
    post,
    close() {
      pools.destroy();
    },
  };
}

const BLOCKED_CODE = new BlockedAddressError('reserved').code;

/** The whole attempt's deadline passed (reported as a timeout, never with this message). */
class DeadlineExceededError extends Error {
  constructor(timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = 'DeadlineExceededError';
  }
}

/** undici's own per-phase timeouts; the whole-attempt deadline is `timedOut`. */
const UNDICI_TIMEOUT_CODES: ReadonlySet<string> = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** `deadlineMs`: set when the attempt's own deadline ended it. */
function transportFailure(
  err: unknown,
  url: string,
  durationMs: number,
  deadlineMs: number | undefined,
): HttpAttempt {
  const code = errorCode(err);
  const timeout = deadlineMs !== undefined || (code !== undefined && UNDICI_TIMEOUT_CODES.has(code));
  const { result, retriable } = classifyErrorCode(timeout ? 'ETIMEDOUT' : code);
  const message = deadlineMs !== undefined ? `Timeout: no answer within ${deadlineMs} ms` : errorMessage(err);
  return { kind: 'error', result, retriable, message: withoutUrl(message, url), durationMs };
}

/** The error's code, or its cause's (undici wraps some socket errors). */
function errorCode(err: unknown): string | undefined {
  for (let e = err, depth = 0; typeof e === 'object' && e !== null && depth < 3; depth++) {
    if ('code' in e && typeof e.code === 'string') return e.code;
    e = 'cause' in e ? e.cause : undefined;
  }
  return undefined;
}

/** Error messages are logged and stored: never with the URL's path or query (they may hold tokens). */
function withoutUrl(message: string, url: string): string {
  return message.split(url).join('<url>');
}
