import type { DestinationSettings, WebhookEntry } from '../records/catalog-model';
import { SecretCorruptError, isSealed, type SecretOpener, type StoredSecret } from '../security/secrets';
import { standardWebhooksKey } from '../security/standard-webhooks';
import { signingSecrets } from './http/standard-webhooks';

/** A destination's settings opened for one delivery: secrets and header values in plaintext. */
export interface OpenedSettings {
  sharedSecret?: string;
  standardWebhooksSecret?: string;
  standardWebhooksPrevious?: { secret: string; rotatedAt: string };
  webhooks: WebhookEntry[];
}

/** Opened values kept per process; past this many the cache starts again (one AES-GCM open each). */
const DEFAULT_MAX_CACHED = 10_000;

/**
 * Opens the sealed values of a destination's settings, the one place delivery meets them in
 * plaintext. Opened values are cached by their sealed form: a changed secret is a new envelope
 * (fresh nonce), so the cache never serves a stale value, and a hot destination costs one map
 * lookup per value. Throws SecretUnreadableError (unknown key, corrupt envelope).
 */
export class SettingsOpener {
  private readonly cache = new Map<StoredSecret, string>();
  /** Per settings object: the catalog replaces a changed destination's settings, never edits them. */
  private readonly opened = new WeakMap<DestinationSettings, OpenedSettings>();
  private readonly maxCached: number;

  constructor(private readonly options: { opener: SecretOpener; maxCached?: number }) {
    this.maxCached = options.maxCached ?? DEFAULT_MAX_CACHED;
  }

  /** The same (frozen) object for the same settings object: one copy per destination version, not per task. */
  open(settings: DestinationSettings): OpenedSettings {
    let opened = this.opened.get(settings);
    if (opened === undefined) {
      opened = Object.freeze(this.openNow(settings));
      this.opened.set(settings, opened);
    }
    return opened;
  }

  private openNow(settings: DestinationSettings): OpenedSettings {
    const webhooks = settings.webhooks.map((w) => ({
      ...w,
      headers: Object.fromEntries(
        Object.entries(w.headers).map(([name, value]) => [name, this.value(value)]),
      ),
    }));
    const { sharedSecret, standardWebhooksSecret, standardWebhooksPrevious } = settings;
    return {
      ...(sharedSecret !== undefined && { sharedSecret: this.value(sharedSecret) }),
      ...(standardWebhooksSecret !== undefined && {
        standardWebhooksSecret: this.value(standardWebhooksSecret),
      }),
      ...(standardWebhooksPrevious && {
        standardWebhooksPrevious: {
          secret: this.value(standardWebhooksPrevious.secret),
          rotatedAt: standardWebhooksPrevious.rotatedAt,
        },
      }),
      webhooks,
    };
  }

  private value(stored: StoredSecret): string {
    if (!isSealed(stored)) return stored; // written before encryption: plaintext as it is
    let plain = this.cache.get(stored);
    if (plain === undefined) {
      plain = this.options.opener.open(stored);
      if (this.cache.size >= this.maxCached) this.cache.clear();
      this.cache.set(stored, plain);
    }
    return plain;
  }
}

/**
 * The Standard Webhooks keys to sign with at `nowMs`: none without a secret; the current one;
 * and the previous one too while the rotation overlap lasts (`signingSecrets`). Throws
 * SecretCorruptError for a stored value that is not a `whsec_` secret (validated when written).
 */
export function standardWebhooksKeysAt(settings: OpenedSettings, nowMs: number, overlapMs: number): Buffer[] {
  const previous = settings.standardWebhooksPrevious;
  const secrets = signingSecrets({
    current: settings.standardWebhooksSecret,
    previous: previous && { secret: previous.secret, rotatedAtMs: Date.parse(previous.rotatedAt) },
    nowMs,
    overlapMs,
  });
  return secrets.map((secret) => {
    const key = standardWebhooksKey(secret);
    if (!key) throw new SecretCorruptError(undefined);
    return key;
  });
}
