import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import fc from 'fast-check';
import {
  ENVELOPE_PREFIX,
  SecretCorruptError,
  SecretKeyUnknownError,
  SecretKeyring,
  isSealed,
  keyIdOf,
  parseSecretsKey,
  sealedKeyId,
} from '../../../src/security/secrets';

const KEY_A = Buffer.alloc(32, 1);
const KEY_B = Buffer.alloc(32, 2);
const SECRET = 'Bearer hunter2-very-secret';

describe('parseSecretsKey', () => {
  const key = randomBytes(32);
  it.each([
    ['standard base64', key.toString('base64'), true],
    ['base64url without padding', key.toString('base64url'), true],
    ['surrounding whitespace', ` ${key.toString('base64')}\n`, true],
    ['31 bytes', randomBytes(31).toString('base64'), false],
    ['33 bytes', randomBytes(33).toString('base64'), false],
    ['not base64', 'this is not a key!', false],
    ['hex of 32 bytes (64 chars = 48 bytes of base64)', key.toString('hex'), false],
  ])('%s', (_name, text, ok) => {
    const parsed = parseSecretsKey(text);
    expect(Buffer.isBuffer(parsed)).toBe(ok);
    if (ok) expect(parsed).toEqual(key);
    else expect(parsed).not.toContain(text.trim());
  });
});

describe('SecretKeyring', () => {
  const ring = new SecretKeyring({ current: KEY_A });

  it('seals into the envelope with the key id, and opens back', () => {
    const sealed = ring.seal(SECRET);
    expect(sealed.startsWith(`${ENVELOPE_PREFIX}${keyIdOf(KEY_A)}:`)).toBe(true);
    expect(isSealed(sealed)).toBe(true);
    expect(sealedKeyId(sealed)).toBe(ring.currentKeyId);
    expect(sealed).not.toContain(SECRET);
    expect(sealed).not.toContain(Buffer.from(SECRET).toString('base64'));
    expect(ring.open(sealed)).toBe(SECRET);
  });

  it('uses a fresh nonce for every seal', () => {
    expect(ring.seal(SECRET)).not.toBe(ring.seal(SECRET));
  });

  it('opens legacy plaintext as it is, and reseals it under the current key', () => {
    expect(isSealed(SECRET)).toBe(false);
    expect(ring.open(SECRET)).toBe(SECRET);
    expect(ring.needsReseal(SECRET)).toBe(true);
    const resealed = ring.reseal(SECRET);
    expect(sealedKeyId(resealed)).toBe(ring.currentKeyId);
    expect(ring.open(resealed)).toBe(SECRET);
    expect(ring.reseal(resealed)).toBe(resealed); // already current: unchanged
  });

  it('tells whether a stored value opens to a given plaintext (false when unreadable)', () => {
    const sealed = ring.seal(SECRET);
    expect(ring.opensTo(sealed, SECRET)).toBe(true);
    expect(ring.opensTo(sealed, `${SECRET}x`)).toBe(false);
    expect(ring.opensTo(SECRET, SECRET)).toBe(true); // legacy plaintext
    expect(ring.opensTo(new SecretKeyring({ current: KEY_B }).seal(SECRET), SECRET)).toBe(false);
  });

  it('opens values of the previous key and reseals them under the current one', () => {
    const old = new SecretKeyring({ current: KEY_A }).seal(SECRET);
    const rotated = new SecretKeyring({ current: KEY_B, previous: KEY_A });
    expect(rotated.keyIds).toEqual([keyIdOf(KEY_B), keyIdOf(KEY_A)]);
    expect(rotated.open(old)).toBe(SECRET);
    const resealed = rotated.reseal(old);
    expect(sealedKeyId(resealed)).toBe(keyIdOf(KEY_B));
    expect(new SecretKeyring({ current: KEY_B }).open(resealed)).toBe(SECRET);
  });

  const sealed = ring.seal(SECRET);
  const body = sealed.slice(sealed.lastIndexOf(':') + 1);
  const flipped = (text: string, at: number) =>
    text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);
  it.each([
    ['unknown key id', new SecretKeyring({ current: KEY_B }), sealed, SecretKeyUnknownError],
    [
      'key id edited to another known key',
      new SecretKeyring({ current: KEY_B, previous: KEY_A }),
      sealed.replace(keyIdOf(KEY_A), keyIdOf(KEY_B)),
      SecretCorruptError,
    ],
    ['ciphertext byte flipped', ring, sealed.replace(body, flipped(body, 20)), SecretCorruptError],
    ['tag byte flipped', ring, sealed.replace(body, flipped(body, body.length - 3)), SecretCorruptError],
    ['truncated', ring, sealed.slice(0, sealed.length - 30), SecretCorruptError],
    ['not an envelope after the prefix', ring, `${ENVELOPE_PREFIX}zz`, SecretCorruptError],
  ])('refuses: %s', (_name, keyring, stored, type) => {
    let caught: unknown;
    try {
      keyring.open(stored);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(type);
    expect((caught as Error).message).not.toContain(SECRET);
    expect((caught as Error).message).not.toContain(body);
    expect((caught as { retriable: boolean }).retriable).toBe(false);
  });

  it('never shows its keys when logged or serialised', () => {
    const rotated = new SecretKeyring({ current: KEY_B, previous: KEY_A });
    for (const text of [JSON.stringify(rotated), inspect(rotated, { depth: 5, showHidden: true })]) {
      for (const key of [KEY_A, KEY_B]) {
        expect(text).not.toContain(key.toString('base64'));
        expect(text).not.toContain(key.toString('hex'));
      }
    }
  });

  it('property: open(seal(x)) = x, and the envelope never contains x', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', minLength: 8, maxLength: 300 }), (plaintext) => {
        const sealedValue = ring.seal(plaintext);
        expect(ring.open(sealedValue)).toBe(plaintext);
        expect(sealedValue.slice(ENVELOPE_PREFIX.length + 9)).not.toContain(plaintext);
      }),
      { seed: 12, numRuns: 200 },
    );
  });
});
