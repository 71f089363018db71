import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { HooklineError } from '../core/errors';

/**
 * Secrets at rest: destination secrets and static header values are sealed with AES-256-GCM
 * before they go onto the catalog topic, and opened only where a request is signed or sent.
 *
 * A sealed value is one compact string, `hlenc:v1:<keyId>:<base64url(nonce | ciphertext | tag)>`:
 *  - keyId: the first 8 hex digits of SHA-256 over the key (with a domain label), so a reader
 *    knows which key sealed it without trying each one, and a wrong key is named, not guessed;
 *  - nonce: 12 random bytes per seal (GCM's standard size; random nonces are safe far beyond
 *    any catalog's number of writes under one key);
 *  - tag: GCM's 16-byte authentication tag. The `hlenc:v1:<keyId>` prefix is the additional
 *    authenticated data, so the key id cannot be edited without failing authentication.
 * A stored value without the prefix was written by a version before encryption: it is plaintext,
 * still readable, and sealed under the current key on the next write (`reseal`).
 */
export const ENVELOPE_PREFIX = 'hlenc:v1:';
export const SECRETS_KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID_HEX = 8;
const ENVELOPE = /^hlenc:v1:([0-9a-f]{8}):([A-Za-z0-9_-]+)$/;

/** A secret as the catalog stores it: a sealed envelope, or plaintext written by an older version. */
export type StoredSecret = string;

/** A stored secret that cannot be opened. Messages name the key id, never secret material. */
export abstract class SecretUnreadableError extends HooklineError {
  readonly retriable = false;
}

/** Sealed with a key this process does not have (neither the current nor the previous one). */
export class SecretKeyUnknownError extends SecretUnreadableError {
  readonly code = 'secret_key_unknown';
  constructor(readonly keyId: string) {
    super(
      `a secret is sealed with key ${keyId}, which is neither HOOKLINE_SECRETS_KEY nor HOOKLINE_SECRETS_KEY_PREVIOUS`,
    );
  }
}

/** The envelope is malformed, truncated, or fails authentication (tampered, or a key id collision). */
export class SecretCorruptError extends SecretUnreadableError {
  readonly code = 'secret_corrupt';
  constructor(readonly keyId: string | undefined) {
    super(`a secret${keyId ? ` sealed with key ${keyId}` : ''} is corrupt or was tampered with`);
  }
}

/**
 * Parses a key given as base64 (standard or URL alphabet, padding optional): exactly 32 bytes.
 * Returns the problem as a string otherwise; the message never quotes the value.
 */
export function parseSecretsKey(text: string): Buffer | string {
  const compact = text.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(compact)) return 'expected base64 (e.g. `openssl rand -base64 32`)';
  const key = Buffer.from(compact.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (key.length !== SECRETS_KEY_BYTES)
    return `expected ${SECRETS_KEY_BYTES} bytes of base64 (e.g. \`openssl rand -base64 32\`), got ${key.length}`;
  return key;
}

/** The id of a key: 8 hex digits of SHA-256 over a domain label and the key. Not secret. */
export function keyIdOf(key: Buffer): string {
  return createHash('sha256')
    .update('hookline secrets key id\0')
    .update(key)
    .digest('hex')
    .slice(0, KEY_ID_HEX);
}

/** True for a value in the envelope format (whatever its key); false for legacy plaintext. */
export function isSealed(stored: StoredSecret): boolean {
  return stored.startsWith(ENVELOPE_PREFIX);
}

/** The key id of a sealed value; undefined for plaintext. */
export function sealedKeyId(stored: StoredSecret): string | undefined {
  return ENVELOPE.exec(stored)?.[1];
}

/** What writes to the catalog need: seal new secrets, bring stored ones under the current key. */
export interface SecretSealer {
  seal(plaintext: string): StoredSecret;
  /** The stored value under the current key: unchanged when it already is, else opened and sealed. */
  reseal(stored: StoredSecret): StoredSecret;
  /** True when `reseal` would change the value: plaintext, or sealed under another key. */
  needsReseal(stored: StoredSecret): boolean;
  /** True when the stored value opens to `plaintext`; false when it differs or cannot be opened. */
  opensTo(stored: StoredSecret, plaintext: string): boolean;
}

/** What signing and sending need. */
export interface SecretOpener {
  open(stored: StoredSecret): string;
}

/**
 * The keys of this process: the current one (HOOKLINE_SECRETS_KEY) seals and opens; the previous
 * one (HOOKLINE_SECRETS_KEY_PREVIOUS), during a key rotation, only opens. Keys are held in private
 * fields: they do not show in logs, `JSON.stringify` or `util.inspect`.
 */
export class SecretKeyring implements SecretSealer, SecretOpener {
  readonly #keys = new Map<string, Buffer>();
  readonly currentKeyId: string;
  readonly #current: Buffer;

  constructor(options: { current: Buffer; previous?: Buffer }) {
    for (const key of [options.current, options.previous]) {
      if (key && key.length !== SECRETS_KEY_BYTES)
        throw new RangeError(`a key has ${SECRETS_KEY_BYTES} bytes`);
    }
    this.#current = Buffer.from(options.current);
    this.currentKeyId = keyIdOf(this.#current);
    this.#keys.set(this.currentKeyId, this.#current);
    if (options.previous) {
      const previousId = keyIdOf(options.previous);
      if (!this.#keys.has(previousId)) this.#keys.set(previousId, Buffer.from(options.previous));
    }
  }

  /** Key ids this keyring can open, the current one first. */
  get keyIds(): string[] {
    return [...this.#keys.keys()];
  }

  seal(plaintext: string): StoredSecret {
    const prefix = `${ENVELOPE_PREFIX}${this.currentKeyId}`;
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#current, nonce, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(prefix, 'utf8'));
    const body = Buffer.concat([
      nonce,
      cipher.update(plaintext, 'utf8'),
      cipher.final(),
      cipher.getAuthTag(),
    ]);
    return `${prefix}:${body.toString('base64url')}`;
  }

  /** Plaintext of a stored value; legacy plaintext is returned as it is. */
  open(stored: StoredSecret): string {
    if (!isSealed(stored)) return stored;
    const match = ENVELOPE.exec(stored);
    if (!match) throw new SecretCorruptError(undefined);
    const keyId = match[1]!;
    const key = this.#keys.get(keyId);
    if (!key) throw new SecretKeyUnknownError(keyId);
    const body = Buffer.from(match[2]!, 'base64url');
    if (body.length < NONCE_BYTES + TAG_BYTES) throw new SecretCorruptError(keyId);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, body.subarray(0, NONCE_BYTES), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(Buffer.from(`${ENVELOPE_PREFIX}${keyId}`, 'utf8'));
      decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
      const plain = Buffer.concat([
        decipher.update(body.subarray(NONCE_BYTES, body.length - TAG_BYTES)),
        decipher.final(),
      ]);
      return plain.toString('utf8');
    } catch {
      throw new SecretCorruptError(keyId); // the cause would add nothing safe to say
    }
  }

  needsReseal(stored: StoredSecret): boolean {
    return sealedKeyId(stored) !== this.currentKeyId;
  }

  reseal(stored: StoredSecret): StoredSecret {
    return this.needsReseal(stored) ? this.seal(this.open(stored)) : stored;
  }

  opensTo(stored: StoredSecret, plaintext: string): boolean {
    let opened: string;
    try {
      opened = this.open(stored);
    } catch (err) {
      if (err instanceof SecretUnreadableError) return false;
      throw err;
    }
    // Digests of equal length, so the comparison's time says nothing about either value.
    const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
    return timingSafeEqual(digest(opened), digest(plaintext));
  }

  toJSON(): { currentKeyId: string; keyIds: string[] } {
    return { currentKeyId: this.currentKeyId, keyIds: this.keyIds };
  }
}
