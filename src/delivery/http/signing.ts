import { createHmac } from 'node:crypto';

/** Header carrying the signature, when the destination has a shared secret. */
export const SIGNATURE_HEADER = 'X-Signature';

/**
 * `X-Signature` value: lowercase hex HMAC-SHA1, keyed with the shared secret, of the exact body
 * bytes (a string body is taken as UTF-8). Sign the bytes that are sent, never a re-serialisation.
 */
export function signatureFor(secret: string, body: string | Buffer): string {
  const hmac = createHmac('sha1', secret);
  return (typeof body === 'string' ? hmac.update(body, 'utf8') : hmac.update(body)).digest('hex');
}
