import type { IncomingMessage } from 'node:http';
import { adminAuthenticator, bearerToken } from '../../../src/http/admin';
import { HttpError } from '../../../src/http/respond';

const request = (authorization?: string) =>
  ({ headers: authorization ? { authorization } : {} }) as IncomingMessage;

function statusOf(check: () => void): number | 'ok' {
  try {
    check();
    return 'ok';
  } catch (err) {
    return err instanceof HttpError ? err.status : -1;
  }
}

describe('admin authentication', () => {
  const authenticate = adminAuthenticator('the-admin-token');

  it.each([
    ['the right token', 'Bearer the-admin-token', 'ok'],
    ['a lower-case scheme', 'bearer the-admin-token', 'ok'],
    ['no header', undefined, 401],
    ['a wrong token', 'Bearer the-admin-tokem', 401],
    ['a prefix of the token', 'Bearer the-admin', 401],
    ['a longer token', 'Bearer the-admin-token-and-more', 401],
    ['another scheme', 'Basic the-admin-token', 401],
    ['a bare token', 'the-admin-token', 401],
  ])('%s → %s', (_case, header, expected) => {
    expect(statusOf(() => authenticate(request(header)))).toBe(expected);
  });

  it('refuses everything when no token is configured', () => {
    expect(statusOf(() => adminAuthenticator(undefined)(request('Bearer anything')))).toBe(401);
  });

  it('never echoes the presented token', () => {
    try {
      authenticate(request('Bearer guess-123'));
    } catch (err) {
      expect((err as Error).message).not.toContain('guess-123');
    }
    expect.assertions(1);
  });

  it('parses the bearer token', () => {
    expect(bearerToken('Bearer  abc ')).toBe('abc');
    expect(bearerToken('Bearer a b')).toBeUndefined();
  });
});
