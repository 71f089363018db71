import { urlWithoutPassword } from '../../../src/observability/redact';

describe('urlWithoutPassword', () => {
  it.each([
    ['https://user:s3cret@example.com/hook?a=1#f', 'https://user:[redacted]@example.com/hook?a=1#f'],
    ['https://:s3cret@example.com:8443/hook', 'https://:[redacted]@example.com:8443/hook'],
    ['https://user@example.com/hook', 'https://user@example.com/hook'],
    ['https://example.com/hook', 'https://example.com/hook'],
    ['not a url', 'not a url'],
  ])('%s reads as %s', (url, shown) => {
    expect(urlWithoutPassword(url)).toBe(shown);
    expect(urlWithoutPassword(url)).not.toContain('s3cret');
  });
});
