import type { SecretSealer, StoredSecret } from '../security/secrets';
import type { DestinationSettings } from '../records/catalog-model';

/**
 * Where the catalog meets the secrets kernel: every value of a destination's settings that may be
 * a credential (shared secret, static header values) is sealed before it is written, and brought
 * under the current key on every write. Nothing here opens a value for any other purpose.
 */

/** Seals each value of a header map given in plaintext (an admin request). */
export function sealHeaders(
  headers: Record<string, string>,
  sealer: SecretSealer,
): Record<string, StoredSecret> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, sealer.seal(value)]));
}

/** Every stored secret of the settings, in a fixed order. */
export function storedSecretsOf(settings: DestinationSettings): StoredSecret[] {
  return [
    ...(settings.sharedSecret === undefined ? [] : [settings.sharedSecret]),
    ...settings.webhooks.flatMap((w) => Object.values(w.headers)),
  ];
}

/** True when some stored secret is plaintext or sealed under a key other than the current one. */
export function needsReseal(settings: DestinationSettings, sealer: SecretSealer): boolean {
  return storedSecretsOf(settings).some((value) => sealer.needsReseal(value));
}

/** The settings with every stored secret under the current key (values already there are kept). */
export function resealSettings(settings: DestinationSettings, sealer: SecretSealer): DestinationSettings {
  const reseal = (value: StoredSecret) => sealer.reseal(value);
  const webhooks = settings.webhooks.map((w) => ({
    ...w,
    headers: Object.fromEntries(Object.entries(w.headers).map(([name, value]) => [name, reseal(value)])),
  }));
  return settings.sharedSecret === undefined
    ? { ...settings, webhooks }
    : { ...settings, sharedSecret: reseal(settings.sharedSecret), webhooks };
}
