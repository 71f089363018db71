import type { Destination, DestinationSettings } from '../records/catalog-model';
import { literalAddress, type AddressPolicy, type BlockReason } from '../security/address-policy';
import type { StandardWebhooksSettings } from './secrets';

/**
 * Pure helpers of the catalog service: a destination's settings as a write leaves them, and the
 * checks a write must pass.
 */

/** `keepDisabled`: when the list is not replaced, URLs stopped after a 410 stay stopped. */
export function settingsOf(options: {
  webhooks: Destination['settings']['webhooks'];
  sharedSecret: string | undefined;
  standardWebhooks: StandardWebhooksSettings;
  keepDisabled?: boolean;
}): DestinationSettings {
  const { sharedSecret, standardWebhooks, keepDisabled = false } = options;
  const webhooks = options.webhooks.map((w) => ({
    url: w.url,
    headers: { ...w.headers },
    ...(keepDisabled && w.disabled && { disabled: { ...w.disabled } }),
  }));
  return { ...(sharedSecret !== undefined && { sharedSecret }), ...standardWebhooks, webhooks };
}

/** The settings with the rate limit set, or without one. */
export function withRateLimit(settings: DestinationSettings, maxRequestsPerSecond: number | undefined) {
  return maxRequestsPerSecond === undefined ? settings : { ...settings, maxRequestsPerSecond };
}

/** The patch's fields that are set: `{ name: undefined }` must not erase a name. */
export function definedFields<T extends object>(patch: T): Partial<T> {
  return Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** The first webhook whose URL names a blocked IP address (host names are checked at delivery). */
export function blockedWebhook(
  webhooks: { url: string }[],
  policy: AddressPolicy,
): { urlIndex: number; reason: BlockReason } | undefined {
  for (const [urlIndex, { url }] of webhooks.entries()) {
    const address = literalAddress(url);
    const verdict = address === undefined ? undefined : policy.check(address);
    if (verdict && !verdict.allowed) return { urlIndex, reason: verdict.reason };
  }
  return undefined;
}
