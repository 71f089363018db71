import { RESERVED_HEADERS } from '../../records/catalog-model';
import { SIGNATURE_HEADER } from './signing';
import { WEBHOOK_ID_HEADER, WEBHOOK_SIGNATURE_HEADER, WEBHOOK_TIMESTAMP_HEADER } from './standard-webhooks';

/**
 * The headers of one webhook request: Hookline's own (`Content-Type: application/json`,
 * `User-Agent`, `X-Signature` only when there is a signature, the Standard Webhooks headers only
 * when the destination has such a secret) plus the entry's static headers.
 *
 * The admin API refuses static headers with a reserved name (`RESERVED_HEADERS`, compared
 * case-insensitively); one in a record written before it did (`Keep-Alive`, `Upgrade` and
 * `Expect` were accepted until then), or otherwise getting through, is dropped here, so ours
 * always win, a static header can neither forge a signature nor break the request's framing, and
 * the HTTP client (undici throws on its hop-by-hop headers) never fails a delivery for one.
 */
export function requestHeaders(options: {
  staticHeaders: Readonly<Record<string, string>>;
  /** Hex HMAC of the body; undefined when the destination has no shared secret. */
  signature: string | undefined;
  /** The Standard Webhooks headers' values; undefined when the destination has no such secret. */
  standardWebhooks?: { id: string; timestampS: number; signature: string };
  userAgent: string;
}): Record<string, string> {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': options.userAgent,
  };
  if (options.signature !== undefined) headers[SIGNATURE_HEADER] = options.signature;
  if (options.standardWebhooks) {
    headers[WEBHOOK_ID_HEADER] = options.standardWebhooks.id;
    headers[WEBHOOK_TIMESTAMP_HEADER] = String(options.standardWebhooks.timestampS);
    headers[WEBHOOK_SIGNATURE_HEADER] = options.standardWebhooks.signature;
  }
  for (const [name, value] of Object.entries(options.staticHeaders)) {
    const lower = name.toLowerCase();
    if (!RESERVED_HEADERS.includes(lower)) headers[name] = value;
  }
  return headers;
}
