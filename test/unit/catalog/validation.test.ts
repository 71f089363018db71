import {
  destinationCreateSchema,
  destinationPatchSchema,
  sourceCreateSchema,
  sourcePatchSchema,
} from '../../../src/catalog/validation';
import { toValidationIssues } from '../../../src/http/validation';

const hook = (url: string, headers?: Record<string, string>) => (headers ? { url, headers } : { url });
const destination = (settings: Record<string, unknown>) => ({ sourceId: 'src_1', name: 'Hook', settings });
const webhooks = (n: number) => Array.from({ length: n }, (_, i) => hook(`https://example.com/${i}`));

/** The first issue's path and code, or 'ok'. */
function check(body: unknown): string {
  const result = destinationCreateSchema.safeParse(body);
  if (result.success) return 'ok';
  const [issue] = toValidationIssues(result.error);
  return `${issue!.path} ${issue!.code}`;
}

describe('destination validation', () => {
  it.each([
    ['one URL', 'ok', destination({ webhooks: webhooks(1) })],
    ['five URLs', 'ok', destination({ webhooks: webhooks(5) })],
    ['zero URLs', 'settings.webhooks too_small', destination({ webhooks: [] })],
    ['six URLs', 'settings.webhooks too_big', destination({ webhooks: webhooks(6) })],
    ['a rate limit', 'ok', destination({ webhooks: webhooks(1), maxRequestsPerSecond: 2.5 })],
    [
      'a rate limit of 0',
      'settings.maxRequestsPerSecond too_small',
      destination({ webhooks: webhooks(1), maxRequestsPerSecond: 0 }),
    ],
    // Regression: any positive number was accepted, and 1e-300 deferred the destination's tasks forever.
    [
      'the lowest rate limit (one event every 100 s)',
      'ok',
      destination({ webhooks: webhooks(1), maxRequestsPerSecond: 0.01 }),
    ],
    [
      'a rate limit below one event every 100 s',
      'settings.maxRequestsPerSecond too_small',
      destination({ webhooks: webhooks(1), maxRequestsPerSecond: 0.0099 }),
    ],
    [
      'a vanishing rate limit',
      'settings.maxRequestsPerSecond too_small',
      destination({ webhooks: webhooks(1), maxRequestsPerSecond: 1e-300 }),
    ],
    [
      'a rate limit too high',
      'settings.maxRequestsPerSecond too_big',
      destination({ webhooks: webhooks(1), maxRequestsPerSecond: 1e6 }),
    ],
    [
      'a rate limit as text',
      'settings.maxRequestsPerSecond invalid_type',
      destination({ webhooks: webhooks(1), maxRequestsPerSecond: '10' }),
    ],
    ['no webhooks field', 'settings.webhooks invalid_type', destination({})],
    [
      'ftp:// URL',
      'settings.webhooks.0.url webhook_url_scheme',
      destination({ webhooks: [hook('ftp://example.com/x')] }),
    ],
    [
      'mailto: URL',
      'settings.webhooks.0.url webhook_url_scheme',
      destination({ webhooks: [hook('mailto:a@example.com')] }),
    ],
    ['no host', 'settings.webhooks.0.url webhook_url_invalid', destination({ webhooks: [hook('http://')] })],
    [
      'relative URL',
      'settings.webhooks.0.url webhook_url_invalid',
      destination({ webhooks: [hook('/hooks')] }),
    ],
    [
      'not a URL',
      'settings.webhooks.0.url webhook_url_invalid',
      destination({ webhooks: [hook('example.com')] }),
    ],
    ...[
      ['user and password', 'https://user:pass@e.com/in'],
      ['user only', 'https://user@e.com/in'],
      ['password only', 'https://:pass@e.com/in'],
      ['percent-encoded credentials', 'http://u%40x:p%3A@10.0.0.1/in'],
    ].map(([credentials, url]): [string, string, unknown] => [
      `URL with credentials (${credentials})`,
      'settings.webhooks.0.url webhook_url_credentials',
      destination({ webhooks: [hook(url!)] }),
    ]),
    ['URL with an empty userinfo (@ only)', 'ok', destination({ webhooks: [hook('https://@e.com/in')] })],
    [
      'http URL with headers',
      'ok',
      destination({
        webhooks: [hook('http://10.0.0.1:8080/in', { 'X-Api-Key': 'k', Authorization: 'Bearer t' })],
      }),
    ],
    [
      'bad header name (space)',
      'settings.webhooks.0.headers.X Bad header_name_invalid',
      destination({ webhooks: [hook('https://e.com', { 'X Bad': 'v' })] }),
    ],
    [
      'bad header name (colon)',
      'settings.webhooks.0.headers.X:Bad header_name_invalid',
      destination({ webhooks: [hook('https://e.com', { 'X:Bad': 'v' })] }),
    ],
    [
      // Regression: zod drops a __proto__ key from a record, so it was accepted (201) without it.
      'header named __proto__',
      'settings.webhooks.0.headers.__proto__ header_name_invalid',
      destination({
        webhooks: [JSON.parse('{"url":"https://e.com","headers":{"__proto__":"v","X-A":"1"}}')],
      }),
    ],
    [
      'header named __proto__ with CR/LF in its value',
      'settings.webhooks.0.headers.__proto__ header_name_invalid',
      destination({
        webhooks: [JSON.parse('{"url":"https://e.com","headers":{"__proto__":"\\r\\nHost: evil"}}')],
      }),
    ],
    [
      'header named constructor (an own key like any other)',
      'ok',
      destination({ webhooks: [JSON.parse('{"url":"https://e.com","headers":{"constructor":"v"}}')] }),
    ],
    [
      'empty header name',
      'settings.webhooks.0.headers. header_name_invalid',
      destination({ webhooks: [hook('https://e.com', { '': 'v' })] }),
    ],
    [
      'CRLF in value',
      'settings.webhooks.0.headers.X-A header_value_invalid',
      destination({ webhooks: [hook('https://e.com', { 'X-A': 'v\r\nX-Injected: 1' })] }),
    ],
    [
      'LF in value',
      'settings.webhooks.0.headers.X-A header_value_invalid',
      destination({ webhooks: [hook('https://e.com', { 'X-A': 'v\nw' })] }),
    ],
    [
      'NUL in value',
      'settings.webhooks.0.headers.X-A header_value_invalid',
      destination({ webhooks: [hook('https://e.com', { 'X-A': 'v\u0000' })] }),
    ],
    [
      'a Standard Webhooks secret without whsec_',
      'settings.standardWebhooksSecret standard_webhooks_secret_invalid',
      destination({
        webhooks: [hook('https://e.com')],
        standardWebhooksSecret: Buffer.alloc(32).toString('base64'),
      }),
    ],
    [
      'a Standard Webhooks secret with a 16-byte key',
      'settings.standardWebhooksSecret standard_webhooks_secret_invalid',
      destination({
        webhooks: [hook('https://e.com')],
        standardWebhooksSecret: `whsec_${Buffer.alloc(16).toString('base64')}`,
      }),
    ],
    [
      'a Standard Webhooks secret',
      'ok',
      destination({
        webhooks: [hook('https://e.com')],
        standardWebhooksSecret: `whsec_${Buffer.alloc(32).toString('base64')}`,
      }),
    ],
    [
      'webhook-signature override',
      'settings.webhooks.0.headers.Webhook-Signature header_reserved',
      destination({ webhooks: [hook('https://e.com', { 'Webhook-Signature': 'v1,x' })] }),
    ],
    [
      'the placeholder reads show, sent back',
      'settings.webhooks.0.headers.Authorization header_value_redacted',
      destination({ webhooks: [hook('https://e.com', { Authorization: '[redacted]' })] }),
    ],
    ['tab in value', 'ok', destination({ webhooks: [hook('https://e.com', { 'X-A': 'a\tb' })] })],
    [
      'Content-Type override',
      'settings.webhooks.0.headers.Content-Type header_reserved',
      destination({ webhooks: [hook('https://e.com', { 'Content-Type': 'text/plain' })] }),
    ],
    [
      'user-agent override',
      'settings.webhooks.0.headers.user-agent header_reserved',
      destination({ webhooks: [hook('https://e.com', { 'user-agent': 'me' })] }),
    ],
    [
      'X-SIGNATURE override',
      'settings.webhooks.0.headers.X-SIGNATURE header_reserved',
      destination({ webhooks: [hook('https://e.com', { 'X-SIGNATURE': 'x' })] }),
    ],
    [
      'Host override',
      'settings.webhooks.0.headers.Host header_reserved',
      destination({ webhooks: [hook('https://e.com', { Host: 'other' })] }),
    ],
    ...['Keep-Alive', 'upgrade', 'EXPECT'].map((name): [string, string, unknown] => [
      `${name} (managed by the HTTP client, which would drop it)`,
      `settings.webhooks.0.headers.${name} header_reserved`,
      destination({ webhooks: [hook('https://e.com', { [name]: 'x' })] }),
    ]),
    [
      'same header twice',
      'settings.webhooks.0.headers.x-a header_duplicate',
      destination({ webhooks: [hook('https://e.com', { 'X-A': '1', 'x-a': '2' })] }),
    ],
    [
      'unknown settings field',
      'settings unrecognized_keys',
      destination({ webhooks: webhooks(1), retries: 3 }),
    ],
    ['shared secret', 'ok', destination({ webhooks: webhooks(1), sharedSecret: 's3cret' })],
    [
      'empty shared secret',
      'settings.sharedSecret too_small',
      destination({ webhooks: webhooks(1), sharedSecret: '' }),
    ],
    ['missing sourceId', 'sourceId invalid_type', { name: 'x', settings: { webhooks: webhooks(1) } }],
    ['blank name', 'name too_small', { sourceId: 's', name: '  ', settings: { webhooks: webhooks(1) } }],
  ])('%s → %s', (_case, expected, body) => {
    expect(check(body)).toBe(expected);
  });

  it('never quotes a submitted value in its messages', () => {
    const secretish = 'sk_live_abcdef\r\n';
    const result = destinationCreateSchema.safeParse(
      destination({
        sharedSecret: 5,
        webhooks: [hook(`ftp://user:${secretish}@e.com`, { 'X-Key': secretish })],
      }),
    );
    expect(result.success).toBe(false);
    const text = JSON.stringify(toValidationIssues(result.error!));
    expect(text).not.toContain('sk_live');
  });

  it('refuses credentials in a URL pointing to the Authorization header, without quoting them', () => {
    for (const schema of [destinationCreateSchema, destinationPatchSchema]) {
      const body = { webhooks: [hook('https://alice:sk_live_pw@e.com/in')] };
      const result = schema.safeParse(
        schema === destinationCreateSchema ? destination(body) : { settings: body },
      );
      expect(result.success).toBe(false);
      const issues = toValidationIssues(result.error!);
      expect(issues).toEqual([
        {
          path: 'settings.webhooks.0.url',
          code: 'webhook_url_credentials',
          message: expect.stringContaining('Authorization header') as unknown,
        },
      ]);
      expect(JSON.stringify(issues)).not.toMatch(/alice|sk_live_pw/);
    }
  });

  it('refuses every reserved header name, also in a patch, so that each accepted one is sent', () => {
    for (const name of ['Keep-Alive', 'Upgrade', 'Expect']) {
      const result = destinationPatchSchema.safeParse({
        settings: { webhooks: [hook('https://e.com', { [name]: '100-continue' })] },
      });
      expect(result.success).toBe(false);
      const [issue] = toValidationIssues(result.error!);
      expect(issue).toEqual({
        path: `settings.webhooks.0.headers.${name}`,
        code: 'header_reserved',
        message: `header ${name} is set by Hookline or its HTTP client and cannot be given`,
      });
    }
  });

  it('normalises URLs and defaults headers and enabled', () => {
    const parsed = destinationCreateSchema.parse(
      destination({ webhooks: [hook('HTTPS://Example.COM/in?x=1')] }),
    );
    expect(parsed.enabled).toBe(true);
    expect(parsed.settings.webhooks).toEqual([{ url: 'https://example.com/in?x=1', headers: {} }]);
  });

  it('accepts a patch that removes the secret, and refuses an empty patch', () => {
    expect(destinationPatchSchema.parse({ settings: { sharedSecret: null } })).toEqual({
      settings: { sharedSecret: null },
    });
    const result = destinationPatchSchema.safeParse({});
    expect(result.success).toBe(false);
    expect(toValidationIssues(result.error!)[0]!.code).toBe('empty_patch');
  });

  it('refuses a patch that would move a destination to another source', () => {
    const result = destinationPatchSchema.safeParse({ sourceId: 'src_other' });
    expect(toValidationIssues(result.error!)[0]!.code).toBe('unrecognized_keys');
  });
});

describe('source validation', () => {
  it.each([
    [{ name: 'Web' }, 'ok'],
    [{ name: 'Web', enabled: false }, 'ok'],
    [{}, 'name invalid_type'],
    [{ name: 'Web', writeKey: 'mine' }, ' unrecognized_keys'],
    [{ name: 'x'.repeat(201) }, 'name too_big'],
  ])('%j → %s', (body, expected) => {
    const result = sourceCreateSchema.safeParse(body);
    const issue = result.success ? undefined : toValidationIssues(result.error)[0];
    expect(issue ? `${issue.path} ${issue.code}` : 'ok').toBe(expected);
  });

  it('trims names and defaults enabled to true', () => {
    expect(sourceCreateSchema.parse({ name: '  Web  ' })).toEqual({ name: 'Web', enabled: true });
  });

  it('refuses an empty patch', () => {
    expect(sourcePatchSchema.safeParse({}).success).toBe(false);
    expect(sourcePatchSchema.parse({ enabled: false })).toEqual({ enabled: false });
  });
});
