import { SettingsOpener } from '../../../src/delivery/secrets';
import { SecretKeyUnknownError, SecretKeyring } from '../../../src/security/secrets';

const keyring = new SecretKeyring({ current: Buffer.alloc(32, 5) });

describe('SettingsOpener', () => {
  it('opens the shared secret and header values; plaintext of older versions passes as it is', () => {
    const opener = new SettingsOpener({ opener: keyring });
    const settings = {
      sharedSecret: keyring.seal('sh'),
      webhooks: [
        { url: 'https://e.com', headers: { Authorization: keyring.seal('Bearer t'), 'X-Old': 'plain' } },
      ],
    };
    expect(opener.open(settings)).toEqual({
      sharedSecret: 'sh',
      webhooks: [{ url: 'https://e.com', headers: { Authorization: 'Bearer t', 'X-Old': 'plain' } }],
    });
    expect(opener.open({ webhooks: [] })).toEqual({ webhooks: [] });
  });

  it('opens each sealed value once, then serves it from the cache (bounded)', () => {
    let opened = 0;
    const counting = { open: (stored: string) => (opened++, keyring.open(stored)) };
    const opener = new SettingsOpener({ opener: counting, maxCached: 2 });
    const settings = { sharedSecret: keyring.seal('sh'), webhooks: [] };
    for (let i = 0; i < 5; i++) opener.open(settings);
    expect(opened).toBe(1);
    for (const secret of ['a', 'b', 'c']) opener.open({ sharedSecret: keyring.seal(secret), webhooks: [] });
    expect(opener.open(settings)).toBe(opener.open(settings)); // one opened copy per settings object
    expect(opened).toBe(4);
    opener.open({ ...settings }); // the value was evicted when the cache filled up: opened again
    expect(opened).toBe(5);
  });

  it('throws the typed error for a value sealed with a key this process lacks', () => {
    const other = new SecretKeyring({ current: Buffer.alloc(32, 6) });
    const opener = new SettingsOpener({ opener: keyring });
    expect(() => opener.open({ sharedSecret: other.seal('x'), webhooks: [] })).toThrow(SecretKeyUnknownError);
  });
});
