import { signatureFor } from '../../../../src/delivery/http/signing';

// Expected values computed once with `printf '%s' BODY | openssl dgst -sha1 -hmac SECRET`.
describe('signatureFor', () => {
  it.each([
    ['RFC 2202 case 2', 'Jefe', 'what do ya want for nothing?', 'effcdf6ae5eb2fa2d27416d5f184df9c259a7c79'],
    [
      'UTF-8 secret and body, lossless numbers',
      's3cr3t-ключ',
      '{"version":1,"type":"track","event":"Café ☕","properties":{"big":12345678901234567890,"f":1.0}}',
      '0f3b792ffdf7d16cc8aa5e1297b1896b8d33c4c2',
    ],
    ['empty body', 'k', '', '3a84a218ee6665209bb70e84525dd837645a1965'],
  ])('%s', (_name, secret, body, expected) => {
    expect(signatureFor(secret, body)).toBe(expected);
    expect(signatureFor(secret, Buffer.from(body, 'utf8'))).toBe(expected);
  });

  it('is lowercase hex of 20 bytes', () => {
    expect(signatureFor('secret', '{}')).toMatch(/^[0-9a-f]{40}$/);
  });
});
