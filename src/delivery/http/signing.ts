import { createHmac } from 'node:crypto';

/** Header carrying the signature, when the destination has a shared secret. */
export const SIGNATURE_HEADER = 'X-Signature';

/**
 * `X-Signature` value: lowercase hex HMAC-SHA1, keyed with the shared secret, of the exact body
 * bytes (a string body is taken as UTF-8). Sign the bytes that are sent, never a re-serialisation.
 */
export function signatureFor(secret: string, body: string | Buffer): string {
  return createHmac('sha1', secret)
    .update(typeof body === 'string' ? Buffer.from(body, 'utf8') : body)
    .digest('hex');
}
