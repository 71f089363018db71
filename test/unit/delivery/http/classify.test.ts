import {
  classifyErrorCode,
  classifyStatus,
  parseRetryAfter,
  retryAfterFor,
} from '../../../../src/delivery/http/classify';

describe('classifyStatus', () => {
  it.each([
    [200, 'success', false],
    [201, 'success', false],
    [204, 'success', false],
    [299, 'success', false],
    // Redirects are not followed: a failure of the configured URL, not retried.
    [301, 'http_4xx', false],
    [302, 'http_4xx', false],
    [304, 'http_4xx', false],
    [307, 'http_4xx', false],
    [308, 'http_4xx', false],
    [400, 'http_4xx', false],
    [401, 'http_4xx', false],
    [404, 'http_4xx', false],
    [408, 'http_4xx', true],
    [410, 'http_4xx', false],
    [413, 'http_4xx', false],
    [429, 'http_4xx', true],
    [500, 'http_5xx', true],
    [502, 'http_5xx', true],
    [503, 'http_5xx', true],
    [504, 'http_5xx', true],
    [599, 'http_5xx', true],
    [101, 'http_5xx', true],
    [600, 'http_5xx', true],
  ])('%i → %s, retriable %s', (status, result, retriable) => {
    expect(classifyStatus(status)).toEqual({ result, retriable });
  });
});

describe('classifyErrorCode', () => {
  it.each([
    ['ETIMEDOUT', 'timeout', true],
    ['ESOCKETTIMEDOUT', 'timeout', true],
    ['ECONNREFUSED', 'connection', true],
    ['ECONNRESET', 'connection', true],
    ['EPIPE', 'connection', true],
    ['ENOTFOUND', 'connection', true],
    ['EAI_AGAIN', 'connection', true],
    ['EHOSTUNREACH', 'connection', true],
    [undefined, 'connection', true],
    ['SOMETHING_NEW', 'connection', true],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'tls', false],
    ['SELF_SIGNED_CERT_IN_CHAIN', 'tls', false],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'tls', false],
    ['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'tls', false],
    ['CERT_HAS_EXPIRED', 'tls', false],
    ['CERT_NOT_YET_VALID', 'tls', false],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls', false],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'tls', false],
    ['EPROTO', 'tls', false],
  ])('%s → %s, retriable %s', (code, result, retriable) => {
    expect(classifyErrorCode(code)).toEqual({ result, retriable });
  });
});

describe('parseRetryAfter', () => {
  const now = Date.UTC(2015, 9, 21, 7, 28, 0); // Wed, 21 Oct 2015 07:28:00 GMT
  it.each<[string | undefined, number | undefined]>([
    [undefined, undefined],
    ['', undefined],
    ['7', 7_000],
    [' 7 ', 7_000],
    ['0', 0],
    ['120', 120_000],
    ['-5', undefined],
    ['1.5', undefined],
    ['7s', undefined],
    ['soon', undefined],
    ['2015-10-21T07:30:00Z', undefined], // ISO 8601 is not an HTTP-date
    ['Wed, 21 Oct 2015 07:28:30 GMT', 30_000], // IMF-fixdate
    ['Wed, 21 Oct 2015 08:28:00 GMT', 3_600_000],
    ['Wed, 21 Oct 2015 07:27:00 GMT', 0], // in the past: no wait
    ['Wed, 21 Oct 2015 07:28:30 PST', undefined],
    ['Wednesday, 21-Oct-15 07:29:00 GMT', 60_000], // RFC 850
    ['Wed Oct 21 07:28:10 2015', 10_000], // asctime
    ['Wed Oct  1 07:28:00 2015', 0],
    ['Wed, 21 Foo 2015 07:28:30 GMT', undefined],
  ])('%j → %j ms', (header, expected) => {
    expect(parseRetryAfter(header, now)).toBe(expected);
  });
});

describe('retryAfterFor', () => {
  it.each<[number, number | undefined]>([
    [429, 7_000],
    [503, 7_000],
    [500, undefined],
    [502, undefined],
    [301, undefined],
    [200, undefined],
  ])('status %i with Retry-After: 7 → %j', (status, expected) => {
    expect(retryAfterFor(status, '7', 0)).toBe(expected);
  });
});
