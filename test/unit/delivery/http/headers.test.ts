import { requestHeaders } from '../../../../src/delivery/http/headers';

const userAgent = 'Hookline/9.9.9';

describe('requestHeaders', () => {
  it('sends Content-Type, User-Agent and the static headers; no X-Signature without a signature', () => {
    expect(
      requestHeaders({
        staticHeaders: { Authorization: 'Bearer t', 'X-Team': 'a' },
        signature: undefined,
        userAgent,
      }),
    ).toEqual({
      'Content-Type': 'application/json',
      'User-Agent': userAgent,
      Authorization: 'Bearer t',
      'X-Team': 'a',
    });
  });

  it('adds X-Signature when there is one', () => {
    expect(requestHeaders({ staticHeaders: {}, signature: 'abc123', userAgent })).toEqual({
      'Content-Type': 'application/json',
      'User-Agent': userAgent,
      'X-Signature': 'abc123',
    });
  });

  it.each([
    'content-type',
    'Content-Type',
    'USER-AGENT',
    'x-signature',
    'Content-Length',
    'host',
    'Transfer-Encoding',
    'connection',
    'Keep-Alive',
    'upgrade',
    'Expect',
  ])('drops a static %s: ours win, the framing stays intact', (name) => {
    const headers = requestHeaders({
      staticHeaders: { [name]: 'forged', 'X-Ok': '1' },
      signature: 'real',
      userAgent,
    });
    expect(headers).toEqual({
      'Content-Type': 'application/json',
      'User-Agent': userAgent,
      'X-Signature': 'real',
      'X-Ok': '1',
    });
  });
});
