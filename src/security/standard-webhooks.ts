/**
 * Standard Webhooks secrets (https://www.standardwebhooks.com): `whsec_` followed by the base64
 * of the signing key. The spec recommends keys of 24 to 64 bytes; shorter ones are too weak to
 * accept, longer ones buy nothing. Shared by the catalog (validation) and delivery (signing).
 */
export const STANDARD_WEBHOOKS_SECRET_PREFIX = 'whsec_';
export const STANDARD_WEBHOOKS_MIN_KEY_BYTES = 24;
export const STANDARD_WEBHOOKS_MAX_KEY_BYTES = 64;

/** The signing key of a `whsec_` secret; undefined when the text is not one. */
export function standardWebhooksKey(secret: string): Buffer | undefined {
  if (!secret.startsWith(STANDARD_WEBHOOKS_SECRET_PREFIX)) return undefined;
  const encoded = secret.slice(STANDARD_WEBHOOKS_SECRET_PREFIX.length);
  // Standard alphabet with optional padding, as the spec's libraries read it; length a multiple of 4 once padded.
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.replace(/=+$/, '').length % 4 === 1)
    return undefined;
  const key = Buffer.from(encoded, 'base64');
  if (key.length < STANDARD_WEBHOOKS_MIN_KEY_BYTES || key.length > STANDARD_WEBHOOKS_MAX_KEY_BYTES)
    return undefined;
  return key;
}
