import type { OpenedSettings } from './secrets';
import { systemClock, type Clock } from '../core/clock';
import { silentLogger, type Logger } from '../observability/logger';
import { BLOCKED_ADDRESS, classifyStatus, type Classification, type HttpResult } from './http/classify';
import { requestHeaders } from './http/headers';
import type { HttpAttempt, WebhookClient } from './http/client';
import { signatureFor } from './http/signing';
import { standardWebhooksSignature } from './http/standard-webhooks';
import type { AttemptSummary } from '../records/delivery-task';
import { earliestRetryAfterMs, type UrlFailure } from './retry/retry-after';

/**
 * One POST to one of the destination's URLs, a URL skipped because its circuit is open, or a
 * request not sent for want of a free socket (`deferred`); an `AttemptSummary` as a task's history
 * stores it.
 */
export interface UrlAttempt extends AttemptSummary {
  result: HttpResult | 'circuit_open' | 'deferred';
}

/** The circuit breakers of one destination's URLs (see circuit/registry.ts). */
export interface CircuitGate {
  allow(urlIndex: number, url: string): boolean;
  record(urlIndex: number, url: string, result: HttpResult, error?: string): void;
}

export type DeliveryOutcome =
  | { kind: 'delivered'; urlIndex: number; status: number; attempts: UrlAttempt[] }
  | {
      kind: 'failed';
      /** False only when every URL failed in a way a later attempt cannot fix. */
      retriable: boolean;
      /**
       * The shortest Retry-After (429/503) in ms, when every URL that may yet succeed sent one
       * (`earliestRetryAfterMs`): the next attempt comes when the earliest URL is ready.
       */
      retryAfterMs?: number;
      attempts: UrlAttempt[];
    };

export interface DeliverOptions {
  client: Pick<WebhookClient, 'post' | 'userAgent'>;
  /**
   * The destination's id (its requests' socket pool) and settings, opened (`SettingsOpener`):
   * plaintext secret and header values.
   */
  destination: { id?: string; settings: OpenedSettings };
  /** The exact body: a task's `payload`, from `serialisePayload`. */
  payload: string;
  /**
   * Standard Webhooks signing, when the destination has such a secret: the message id and the
   * keys to sign with now (`signingSecrets`). Each request is signed at its own send time.
   */
  standardWebhooks?: { id: string; keys: Buffer[] };
  clock?: Clock;
  logger?: Logger;
  /** Bound to every log line, e.g. { taskId, messageId, sourceId, destinationId }. */
  logFields?: Record<string, string | number>;
  /** When given, a URL whose circuit is open is skipped (failover goes on to the next). */
  circuit?: CircuitGate;
}

/**
 * Delivers one payload to a destination: signed once (when it has a shared secret; Standard
 * Webhooks signatures per request, since they cover the send time), then POSTed
 * to its URLs in configured order until one answers 2xx; later URLs are not called. Never throws
 * for a receiver's or the network's failure: that is a `failed` outcome.
 *
 * Logs one line per URL attempt, `delivery.attempted` (debug on success, warn otherwise), with
 * urlIndex, urlHost (host[:port] only: paths and query strings may hold tokens), status (when
 * there was a response), result, retriable, durationMs and error (transport failures), plus
 * `logFields`. Never the URL's path or query, headers, the body or the secret. A URL refused by
 * the SSRF guard (`blocked_address`) is logged with its urlIndex only: not even its host.
 */
export async function deliverToDestination(options: DeliverOptions): Promise<DeliveryOutcome> {
  const { client, payload } = options;
  const { sharedSecret, webhooks } = options.destination.settings;
  const clock = options.clock ?? systemClock;
  const log = attemptLog(options.logger ?? silentLogger(), options.logFields);

  // Sent and signed as the string it is (UTF-8): no copy of the body per delivery.
  const body = payload;
  const signature = sharedSecret ? signatureFor(sharedSecret, body) : undefined;
  const attempts: UrlAttempt[] = [];
  const failures: UrlFailure[] = [];

  for (const [urlIndex, entry] of webhooks.entries()) {
    if (entry.disabled) continue; // answered 410 Gone earlier: never called again
    const atMs = clock.now();
    if (options.circuit && !options.circuit.allow(urlIndex, entry.url)) {
      // Skipped, not failed for good: a later attempt may find the circuit closed again.
      const skipped: UrlAttempt = { atMs, urlIndex, result: 'circuit_open', durationMs: 0 };
      attempts.push(skipped);
      log(skipped, { result: 'connection', retriable: true }, entry.url);
      failures.push({ retriable: true });
      continue;
    }
    const headers = requestHeaders({
      staticHeaders: entry.headers,
      signature,
      standardWebhooks: standardWebhooksHeaders(options.standardWebhooks, body, atMs),
      userAgent: client.userAgent,
    });
    const http = await client.post({ destinationId: options.destination.id, url: entry.url, headers, body });
    if (http.kind === 'unsent') {
      // Never sent: a shortage of this process's sockets, not the receiver's failure. Like an open
      // circuit: not counted by the breaker, retriable, and the next URL is tried.
      const unsent: UrlAttempt = {
        atMs,
        urlIndex,
        result: 'deferred',
        durationMs: http.durationMs,
        error: http.message,
      };
      attempts.push(unsent);
      log(unsent, { result: 'connection', retriable: true }, entry.url);
      failures.push({ retriable: true });
      continue;
    }
    const { attempt, classification } = summarise(http, urlIndex, atMs);
    options.circuit?.record(urlIndex, entry.url, classification.result, attempt.error);
    attempts.push(attempt);
    log(attempt, classification, entry.url);

    if (http.kind === 'response' && classification.result === 'success') {
      return { kind: 'delivered', urlIndex, status: http.status, attempts };
    }
    const urlRetryAfterMs = http.kind === 'response' ? http.retryAfterMs : undefined;
    failures.push({
      retriable: classification.retriable,
      ...(urlRetryAfterMs !== undefined && { retryAfterMs: urlRetryAfterMs }),
    });
  }
  const retriable = failures.some((f) => f.retriable);
  const retryAfterMs = earliestRetryAfterMs(failures);
  return { kind: 'failed', retriable, ...(retryAfterMs !== undefined && { retryAfterMs }), attempts };
}

function standardWebhooksHeaders(
  signing: DeliverOptions['standardWebhooks'],
  body: string,
  atMs: number,
): { id: string; timestampS: number; signature: string } | undefined {
  if (!signing || signing.keys.length === 0) return undefined;
  const timestampS = Math.floor(atMs / 1_000);
  return {
    id: signing.id,
    timestampS,
    signature: standardWebhooksSignature({ keys: signing.keys, id: signing.id, timestampS, body }),
  };
}

function summarise(http: Exclude<HttpAttempt, { kind: 'unsent' }>, urlIndex: number, atMs: number) {
  if (http.kind === 'response') {
    const classification = classifyStatus(http.status);
    const attempt: UrlAttempt = {
      atMs,
      urlIndex,
      result: classification.result,
      status: http.status,
      durationMs: http.durationMs,
    };
    return { attempt, classification };
  }
  if (http.kind === 'blocked') {
    const attempt: UrlAttempt = { atMs, urlIndex, result: 'blocked_address', durationMs: http.durationMs };
    return { attempt, classification: BLOCKED_ADDRESS };
  }
  const classification: Classification = { result: http.result, retriable: http.retriable };
  const attempt: UrlAttempt = {
    atMs,
    urlIndex,
    result: http.result,
    durationMs: http.durationMs,
    error: http.message,
  };
  return { attempt, classification };
}

type AttemptLog = (attempt: UrlAttempt, classification: Classification, url: string) => void;

/**
 * Logs `delivery.attempted` with `fields` bound. The line (the URL parsed for its host, the fields
 * merged) is built only when its level is enabled, and a child logger per task would serialise
 * (and redact) the fields of every task whether a line is written or not.
 *
 * A success logs at debug: the default level (info) logs only what went wrong. Every attempt is in
 * hookline.attempts and the attempts API, and counted in the metrics; a line per delivered event
 * at info cost a third of the end-to-end rate (one synchronous write to stdout per line) and about
 * 30 GB of logs a day for every thousand deliveries a second (~350 bytes a line).
 */
function attemptLog(logger: Logger, fields: Record<string, string | number> | undefined): AttemptLog {
  return (attempt, classification, url) => {
    const level = attempt.result === 'success' ? 'debug' : 'warn';
    if (!logger.isLevelEnabled(level)) return;
    const line = {
      ...fields,
      urlIndex: attempt.urlIndex,
      ...(attempt.result !== 'blocked_address' && { urlHost: hostOf(url) }),
      ...(attempt.status !== undefined && { status: attempt.status }),
      result: attempt.result,
      retriable: classification.retriable,
      durationMs: attempt.durationMs,
      ...(attempt.error !== undefined && { error: attempt.error }),
    };
    logger[level](line, 'delivery.attempted');
  };
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '<invalid url>';
  }
}
