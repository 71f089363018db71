import type { StoredSecret } from '../security/secrets';

/**
 * The catalog's entities. Sources and destinations are stored as records on the compacted topic
 * `hookline.catalog` (key = entity id, tombstone = delete) and materialised by every process.
 */
export interface Source {
  id: string;
  name: string;
  enabled: boolean;
  /** SHA-256 (hex) of the write key; the key itself is shown once, when the source is created. */
  writeKeyHash: string;
  /** First 6 characters of the write key: enough to tell keys apart, far too few to guess one. */
  writeKeyPrefix?: string;
  createdAt: string;
  updatedAt: string;
  /**
   * The catalog's version of this entity (1 at creation, +1 per change; 0 when written before
   * versions existed). Carried in the record header `hookline-version`, not in the Avro value.
   */
  version?: number;
}

export interface WebhookEntry {
  /** Full http(s) URL. */
  url: string;
  /**
   * Static headers sent with every request to this URL. Values are stored sealed (they often
   * carry credentials): name → StoredSecret; only delivery opens them.
   */
  headers: Record<string, StoredSecret>;
  /**
   * Set when Hookline stopped calling this URL because it answered 410 Gone. Replacing the
   * destination's webhook list (PATCH settings.webhooks) clears it.
   */
  disabled?: { at: string; reason: string };
}

/**
 * A destination's settings as the catalog stores them: every secret and header value sealed
 * (src/security/secrets.ts), or plaintext when written by a version before encryption.
 */
export interface DestinationSettings {
  /** When set, every delivery carries X-Signature = hex HMAC-SHA1(sharedSecret, body). Write-only. */
  sharedSecret?: StoredSecret;
  /**
   * When set (`whsec_` + base64 key), every delivery also carries the Standard Webhooks headers
   * `webhook-id`, `webhook-timestamp` and `webhook-signature`. Write-only.
   */
  standardWebhooksSecret?: StoredSecret;
  /**
   * The Standard Webhooks secret that `standardWebhooksSecret` replaced, and when: requests are
   * signed with both until `rotatedAt` + HOOKLINE_SECRET_ROTATION_OVERLAP.
   */
  standardWebhooksPrevious?: { secret: StoredSecret; rotatedAt: string };
  /** 1–5 URLs, tried in order; the first success wins. */
  webhooks: WebhookEntry[];
  /**
   * Tasks (events) per second Hookline starts for this destination at most, across every worker
   * process and replica (its tasks all go through one partition of the deliveries topic). Each
   * task tries up to all of `webhooks` in order: the limit counts tasks, not requests. Absent: no limit.
   */
  maxRequestsPerSecond?: number;
}

export interface Destination {
  id: string;
  sourceId: string;
  name: string;
  enabled: boolean;
  settings: DestinationSettings;
  createdAt: string;
  updatedAt: string;
  /** As `Source.version`. */
  version?: number;
}

/** Read side of the catalog, as every role sees it. Lookups are in-memory and synchronous. */
export interface CatalogView {
  /** The source whose write key this is (compared by hash), enabled or not. */
  sourceByWriteKey(writeKey: string): Source | undefined;
  source(id: string): Source | undefined;
  /** Every source. */
  sources(): Source[];
  destination(id: string): Destination | undefined;
  /** Every destination of the source, enabled or not, in creation order. */
  destinationsOfSource(sourceId: string): Destination[];
}

/**
 * Header names a destination may not set (compared case-insensitively). The first six are
 * Hookline's own (body type, client identity, signature, the Standard Webhooks headers); the next
 * four would corrupt the request's framing or target; the last three are hop-by-hop headers the
 * HTTP client manages itself and refuses from callers (undici throws on them). The admin API
 * refuses them all, so that every static header it accepts is sent; delivery drops any that a
 * record written before carries.
 */
export const RESERVED_HEADERS: readonly string[] = [
  'content-type',
  'user-agent',
  'x-signature',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
  'content-length',
  'transfer-encoding',
  'connection',
  'host',
  'keep-alive',
  'upgrade',
  'expect',
];
