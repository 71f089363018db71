import type { SecretOpener, SecretSealer, StoredSecret } from '../security/secrets';
import type { Destination, DestinationSettings } from '../records/catalog-model';

/**
 * Where the catalog meets the secrets kernel: every value of a destination's settings that may be
 * a credential (shared secret, Standard Webhooks secrets, static header values) is sealed before it is written, and brought
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
    settings.sharedSecret,
    settings.standardWebhooksSecret,
    settings.standardWebhooksPrevious?.secret,
    ...settings.webhooks.flatMap((w) => Object.values(w.headers)),
  ].filter((value) => value !== undefined);
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
  const { sharedSecret, standardWebhooksSecret, standardWebhooksPrevious } = settings;
  return {
    ...settings,
    ...(sharedSecret !== undefined && { sharedSecret: reseal(sharedSecret) }),
    ...(standardWebhooksSecret !== undefined && { standardWebhooksSecret: reseal(standardWebhooksSecret) }),
    ...(standardWebhooksPrevious && {
      standardWebhooksPrevious: {
        ...standardWebhooksPrevious,
        secret: reseal(standardWebhooksPrevious.secret),
      },
    }),
    webhooks,
  };
}

/** The Standard Webhooks part of a destination's settings. */
export type StandardWebhooksSettings = Pick<
  DestinationSettings,
  'standardWebhooksSecret' | 'standardWebhooksPrevious'
>;

/**
 * What a request does to the Standard Webhooks secrets. `undefined` keeps them; `null` removes
 * both (nothing left to sign with); a new secret (sealed) replaces the current one, which becomes
 * the previous one as of `now` (it keeps signing for the rotation overlap). A secret set where
 * there was none has no previous one. Only one previous secret is kept: rotating again within the
 * overlap drops the oldest.
 */
export function nextStandardWebhooks(
  current: StandardWebhooksSettings,
  change: StoredSecret | null | undefined,
  now: string,
): StandardWebhooksSettings {
  if (change === undefined) {
    const { standardWebhooksSecret, standardWebhooksPrevious } = current;
    return {
      ...(standardWebhooksSecret !== undefined && { standardWebhooksSecret }),
      ...(standardWebhooksPrevious && { standardWebhooksPrevious }),
    };
  }
  if (change === null) return {};
  const previous = current.standardWebhooksSecret;
  return {
    standardWebhooksSecret: change,
    ...(previous !== undefined && { standardWebhooksPrevious: { secret: previous, rotatedAt: now } }),
  };
}

/**
 * Whether `next` (a patched destination, its new values sealed) says exactly what `current`
 * does: every field but `updatedAt` and `version`, with each secret and header value compared
 * opened (sealing the same value twice gives different bytes). A value that cannot be opened
 * here counts as changed.
 */
export function sameDestination(current: Destination, next: Destination, opener: SecretOpener): boolean {
  const comparable = (d: Destination) => {
    const { settings, ...rest } = d;
    const open = (value: StoredSecret | undefined) => (value === undefined ? undefined : opener.open(value));
    return JSON.stringify(
      sortedKeys({
        ...rest,
        updatedAt: undefined,
        version: undefined,
        settings: {
          ...settings,
          sharedSecret: open(settings.sharedSecret),
          standardWebhooksSecret: open(settings.standardWebhooksSecret),
          standardWebhooksPrevious: settings.standardWebhooksPrevious && {
            ...settings.standardWebhooksPrevious,
            secret: open(settings.standardWebhooksPrevious.secret),
          },
          webhooks: settings.webhooks.map((w) => ({
            ...w,
            headers: Object.fromEntries(Object.entries(w.headers).map(([name, v]) => [name, open(v)])),
          })),
        },
      }),
    );
  };
  try {
    return comparable(current) === comparable(next);
  } catch {
    return false;
  }
}

/** A JSON-like value with every object's keys in order and undefined members left out. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => [k, sortedKeys(v)]),
  );
}

/** A secret given in a request, sealed; null or undefined: none. */
export function sealedSecret(secret: string | null | undefined, sealer: SecretSealer): string | undefined {
  return secret === null || secret === undefined ? undefined : sealer.seal(secret);
}

/** Webhooks given in a request, their header values sealed. */
export function sealWebhooks(
  webhooks: { url: string; headers: Record<string, string> }[],
  sealer: SecretSealer,
): Destination['settings']['webhooks'] {
  return webhooks.map((w) => ({ url: w.url, headers: sealHeaders(w.headers, sealer) }));
}

/**
 * What a patch does to the Standard Webhooks secret: the new secret sealed, null (remove) or
 * undefined (keep). A patch that sends the secret already set (a client sending its whole
 * settings on every change) keeps it: that is no rotation, and treating it as one would drop the
 * previous secret while receivers may still verify with it, and restart the overlap.
 */
export function standardWebhooksSecretChange(
  stored: StoredSecret | undefined,
  given: string | null | undefined,
  sealer: SecretSealer & SecretOpener,
): StoredSecret | null | undefined {
  if (given === null || given === undefined) return given;
  if (stored !== undefined && sealer.opensTo(stored, given)) return undefined;
  return sealer.seal(given);
}
