import type { AttemptResult } from '../../records/delivery-task';

/** What one HTTP attempt can come to (a task's `deferred`, a URL's `circuit_open` are not HTTP outcomes). */
export type HttpResult = Exclude<AttemptResult, 'deferred' | 'circuit_open'>;
/** Failures with no HTTP response. */
export type TransportResult = Extract<HttpResult, 'timeout' | 'connection' | 'tls'>;

export interface Classification<R extends HttpResult = HttpResult> {
  result: R;
  /** Whether trying the same request later can succeed. */
  retriable: boolean;
}

/**
 * A URL whose address the SSRF guard refused: not retriable (the same name will resolve the same
 * way, and an operator must allow the network first), and never attempted on the wire.
 */
export const BLOCKED_ADDRESS: Classification = { result: 'blocked_address', retriable: false };

/**
 * The outcome of an HTTP status.
 *  - 2xx: success.
 *  - 408, 429 and every 5xx: retriable ('http_4xx' / 'http_5xx').
 *  - Other 4xx, 410 included: not retriable; the receiver refuses this request as addressed.
 *  - 3xx: redirects are not followed (a redirect could send a signed body to a host the customer
 *    never configured), so a 3xx is a failure. It is reported as 'http_4xx', not retriable: like a
 *    4xx it means the configured URL is wrong, and the same request will meet the same redirect.
 *    The attempt keeps the real status, so the history still shows 301/302/307/308.
 *  - Anything else (1xx as a final status, 6xx-9xx): a broken server, treated like a 5xx.
 */
export function classifyStatus(status: number): Classification {
  if (status >= 200 && status < 300) return { result: 'success', retriable: false };
  if (status >= 300 && status < 400) return { result: 'http_4xx', retriable: false };
  if (status >= 400 && status < 500)
    return { result: 'http_4xx', retriable: status === 408 || status === 429 };
  return { result: 'http_5xx', retriable: true };
}

/**
 * Node/OpenSSL codes of a certificate that does not verify (self-signed, untrusted, expired, not
 * for this host). No request is sent, and none will be until the receiver fixes its certificate.
 */
const CERTIFICATE_CODES: ReadonlySet<string> = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'INVALID_CA',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

const TIMEOUT_CODES: ReadonlySet<string> = new Set(['ETIMEDOUT', 'ESOCKETTIMEDOUT']);

/**
 * The outcome of a request that got no response, from its error code.
 *  - Timeouts (ours or the OS's connect timeout): 'timeout', retriable.
 *  - Certificate verification failures: 'tls', NOT retriable. There is never a fallback to
 *    unverified TLS.
 *  - Other TLS handshake failures (ERR_SSL_*, EPROTO: e.g. https:// to a plain-HTTP port): 'tls',
 *    not retriable either: a protocol mismatch is configuration, not a passing fault.
 *  - Everything else (refused, reset, DNS, unreachable, unknown): 'connection', retriable.
 */
export function classifyErrorCode(code: string | undefined): Classification<TransportResult> {
  if (code === undefined) return { result: 'connection', retriable: true };
  if (TIMEOUT_CODES.has(code)) return { result: 'timeout', retriable: true };
  if (CERTIFICATE_CODES.has(code) || code.startsWith('ERR_SSL_') || code === 'EPROTO') {
    return { result: 'tls', retriable: false };
  }
  return { result: 'connection', retriable: true };
}

/** Statuses whose `Retry-After` is honoured. */
const RETRY_AFTER_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/** `Retry-After` in ms for a 429 or 503 that sent a valid one; undefined otherwise. */
export function retryAfterFor(status: number, header: string | undefined, nowMs: number): number | undefined {
  return RETRY_AFTER_STATUSES.has(status) ? parseRetryAfter(header, nowMs) : undefined;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
/** The three HTTP-date forms (RFC 9110 §5.6.7); groups are normalised to day, month, year, h, m, s. */
const HTTP_DATES: { pattern: RegExp; order: [number, number, number, number, number, number] }[] = [
  // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
  {
    pattern: new RegExp(`^[A-Z][a-z]{2}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`),
    order: [1, 2, 3, 4, 5, 6],
  },
  // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
  { pattern: new RegExp(`^[A-Z][a-z]+, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`), order: [1, 2, 3, 4, 5, 6] },
  // asctime: Sun Nov  6 08:49:37 1994
  { pattern: new RegExp(`^[A-Z][a-z]{2} ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`), order: [2, 1, 6, 3, 4, 5] },
];

/**
 * `Retry-After` as a wait in ms from `nowMs`: delta-seconds (`120`) or an HTTP-date (a date in
 * the past is a wait of 0). Undefined when absent or malformed. Not clamped here: the retry
 * schedule clamps it.
 */
export function parseRetryAfter(header: string | undefined, nowMs: number): number | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) {
    const ms = Number(value) * 1_000;
    return Number.isFinite(ms) ? ms : undefined;
  }
  const atMs = parseHttpDate(value);
  return atMs === undefined ? undefined : Math.max(0, atMs - nowMs);
}

function parseHttpDate(value: string): number | undefined {
  for (const { pattern, order } of HTTP_DATES) {
    const m = pattern.exec(value);
    if (!m) continue;
    const [day, month, year, h, min, s] = order.map((i) => m[i]!.trim());
    const fullYear = year!.length === 2 ? twoDigitYear(Number(year)) : Number(year);
    const atMs = Date.UTC(fullYear, MONTHS.indexOf(month!), Number(day), Number(h), Number(min), Number(s));
    return Number.isNaN(atMs) ? undefined : atMs;
  }
  return undefined;
}

/** RFC 850 years: 70-99 are 19xx, 00-69 are 20xx (a Retry-After is never far from now). */
function twoDigitYear(yy: number): number {
  return yy >= 70 ? 1900 + yy : 2000 + yy;
}
