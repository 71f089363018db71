import type { DestinationSettings, WebhookEntry } from '../records/catalog-model';
import { isSealed, type SecretOpener, type StoredSecret } from '../security/secrets';

/** A destination's settings opened for one delivery: the shared secret and header values in plaintext. */
export interface OpenedSettings {
  sharedSecret?: string;
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
  private readonly maxCached: number;

  constructor(private readonly options: { opener: SecretOpener; maxCached?: number }) {
    this.maxCached = options.maxCached ?? DEFAULT_MAX_CACHED;
  }

  open(settings: DestinationSettings): OpenedSettings {
    const webhooks = settings.webhooks.map((w) => ({
      ...w,
      headers: Object.fromEntries(
        Object.entries(w.headers).map(([name, value]) => [name, this.value(value)]),
      ),
    }));
    return settings.sharedSecret === undefined
      ? { webhooks }
      : { sharedSecret: this.value(settings.sharedSecret), webhooks };
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
