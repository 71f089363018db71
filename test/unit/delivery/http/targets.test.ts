import { Targets } from '../../../../src/delivery/http/targets';
import { createAddressPolicy } from '../../../../src/security/address-policy';

describe('Targets', () => {
  const targets = new Targets(createAddressPolicy({ allowedNetworks: ['127.0.0.0/8'] }));

  it('splits a URL into origin and path with its query, and keeps the guard verdict of an IP literal', () => {
    expect(targets.of('https://hooks.example.com:8443/in/x?token=t')).toEqual({
      origin: 'https://hooks.example.com:8443',
      path: '/in/x?token=t',
      blocked: false,
    });
    expect(targets.of('http://127.0.0.1:9000/hook').blocked).toBe(false);
    expect(targets.of('http://10.0.0.1/hook').blocked).toBe(true);
    expect(targets.of('http://169.254.169.254/latest').blocked).toBe(true);
    expect(targets.of('http://[::1]/hook').blocked).toBe(true);
  });

  it('answers the same target for the same URL, and throws for one that does not parse', () => {
    expect(targets.of('https://a.example/x')).toBe(targets.of('https://a.example/x'));
    expect(() => targets.of('not a url')).toThrow('Invalid URL');
    expect(() => targets.of('not a url')).toThrow('Invalid URL'); // not cached as valid
  });
});
