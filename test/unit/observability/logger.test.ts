import { createLogger } from '../../../src/observability/logger';
import { REDACTED, redactSecrets } from '../../../src/observability/redact';

const SECRET = 'hunter2-s3cr3t';

/** A logger at debug whose lines are collected, as text and parsed. */
function capture() {
  const lines: string[] = [];
  const logger = createLogger({
    level: 'debug',
    destination: { write: (line: string) => void lines.push(line) },
  });
  return { logger, lines, parsed: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('logger redaction', () => {
  const cases: [string, Record<string, unknown>, Record<string, unknown>][] = [
    ['a top-level shared secret', { sharedSecret: SECRET, id: 'd1' }, { sharedSecret: REDACTED, id: 'd1' }],
    ['a top-level write key', { writeKey: SECRET }, { writeKey: REDACTED }],
    ['a top-level admin token', { adminToken: SECRET }, { adminToken: REDACTED }],
    ['a top-level password', { password: SECRET }, { password: REDACTED }],
    ['a top-level authorization', { authorization: SECRET }, { authorization: REDACTED }],
    ['an Authorization header as written', { Authorization: SECRET }, { Authorization: REDACTED }],
    [
      'a Standard Webhooks secret and the one it replaced',
      {
        settings: {
          standardWebhooksSecret: SECRET,
          standardWebhooksPrevious: { secret: SECRET, rotatedAt: 'x' },
        },
      },
      { settings: { standardWebhooksSecret: REDACTED, standardWebhooksPrevious: REDACTED } },
    ],
    [
      'a secret under its plain name',
      { secret: SECRET, secretsKey: SECRET },
      { secret: REDACTED, secretsKey: REDACTED },
    ],
    [
      'a secret one level down',
      { config: { adminToken: SECRET, port: 8080 } },
      { config: { adminToken: REDACTED, port: 8080 } },
    ],
    [
      'a destination’s secret two levels down',
      { destination: { id: 'd1', settings: { sharedSecret: SECRET, webhooks: [] } } },
      { destination: { id: 'd1', settings: { sharedSecret: REDACTED, webhooks: [] } } },
    ],
    [
      'request headers’ authorization',
      { request: { headers: { authorization: SECRET, 'content-type': 'application/json' } } },
      { request: { headers: { authorization: REDACTED, 'content-type': 'application/json' } } },
    ],
    [
      'secrets inside an array',
      { destinations: [{ sharedSecret: SECRET }, { id: 'd2' }] },
      { destinations: [{ sharedSecret: REDACTED }, { id: 'd2' }] },
    ],
    [
      'a line with nothing to redact',
      { messageId: 'm1', urlHost: 'example.com', status: 200, retriable: false, nested: { a: [1, 2] } },
      { messageId: 'm1', urlHost: 'example.com', status: 200, retriable: false, nested: { a: [1, 2] } },
    ],
  ];

  it.each(cases)('redacts %s', (_name, logged, expected) => {
    const { logger, lines, parsed } = capture();
    const before = JSON.stringify(logged);
    logger.info(logged, 'line');
    expect(parsed()[0]).toMatchObject({ ...expected, msg: 'line' });
    expect(lines[0]).not.toContain(SECRET);
    expect(JSON.stringify(logged)).toBe(before); // the caller's object is never changed
  });

  it('returns the same object, uncopied, when there is nothing to redact', () => {
    const line = { messageId: 'm1', nested: { headers: { 'x-a': 'b' } }, list: [{ a: 1 }] };
    expect(redactSecrets(line)).toBe(line);
  });

  it('copies only along the path to a secret', () => {
    const untouched = { a: 1 };
    const line = { untouched, destination: { settings: { sharedSecret: SECRET } } };
    const redacted = redactSecrets(line);
    expect(redacted).not.toBe(line);
    expect(redacted.untouched).toBe(untouched);
    expect(redacted.destination.settings.sharedSecret).toBe(REDACTED);
    expect(line.destination.settings.sharedSecret).toBe(SECRET);
  });

  it('redacts child loggers’ bindings', () => {
    const { logger, lines, parsed } = capture();
    logger.child({ source: { writeKey: SECRET } }).warn('bound');
    logger.child({ component: 'worker' }).child({ adminToken: SECRET }).warn('grandchild');
    expect(parsed()[0]).toMatchObject({ source: { writeKey: REDACTED }, msg: 'bound' });
    expect(parsed()[1]).toMatchObject({ component: 'worker', adminToken: REDACTED, msg: 'grandchild' });
    expect(lines.join('')).not.toContain(SECRET);
  });

  it('redacts an error’s secret property and keeps its message and stack', () => {
    const { logger, lines, parsed } = capture();
    const err = Object.assign(new Error('connect failed'), { password: SECRET });
    logger.error({ err }, 'failed');
    const line = parsed()[0]!;
    expect(line.err).toMatchObject({ message: 'connect failed', password: REDACTED });
    expect(String((line.err as { stack: string }).stack)).toContain('connect failed');
    expect(lines[0]).not.toContain(SECRET);
    expect(err.password).toBe(SECRET);
  });

  it('leaves an error without secrets to pino’s error serialiser', () => {
    const { logger, parsed } = capture();
    logger.error({ err: new TypeError('bad input') }, 'failed');
    expect(parsed()[0]!.err).toMatchObject({ type: 'TypeError', message: 'bad input' });
  });

  it('does not look inside binary data', () => {
    const bytes = Buffer.from('password');
    expect(redactSecrets({ bytes })).toEqual({ bytes });
  });
});
