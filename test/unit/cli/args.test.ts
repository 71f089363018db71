import { parseArgs, parseTime, UsageError } from '../../../src/cli/args';
import { requestFor } from '../../../src/cli/requests';

const NOW = Date.UTC(2024, 4, 1, 12, 0, 0);

describe('CLI arguments → admin API requests', () => {
  it.each([
    ['dlq list', { method: 'GET', path: '/api/v1/dead-letters' }],
    [
      'dlq list --destination dst_a --since 2h --until=2024-05-01T11:30:00Z --limit 5',
      {
        method: 'GET',
        path: '/api/v1/dead-letters?destinationId=dst_a&since=2024-05-01T10%3A00%3A00.000Z&until=2024-05-01T11%3A30%3A00.000Z&limit=5',
      },
    ],
    ['dlq list --reason http_410', { method: 'GET', path: '/api/v1/dead-letters?reason=http_410' }],
    ['dlq show src:m/1:dst', { method: 'GET', path: '/api/v1/dead-letters/src%3Am%2F1%3Adst' }],
    ['dlq redrive --all', { method: 'POST', path: '/api/v1/dead-letters/redrive', body: {} }],
    [
      'dlq redrive --destination dst_a --task t1 --task t2',
      {
        method: 'POST',
        path: '/api/v1/dead-letters/redrive',
        body: { destinationId: 'dst_a', taskIds: ['t1', 't2'] },
      },
    ],
    [
      'attempts dst_a --message-id m1 --outcome dead_lettered',
      { method: 'GET', path: '/api/v1/destinations/dst_a/attempts?messageId=m1&outcome=dead_lettered' },
    ],
    [
      'replay dst_a --since 1d',
      {
        method: 'POST',
        path: '/api/v1/destinations/dst_a/replay',
        body: { since: '2024-04-30T12:00:00.000Z' },
      },
    ],
    ['replay status rpl_1', { method: 'GET', path: '/api/v1/replays/rpl_1' }],
    ['secrets reencrypt', { method: 'POST', path: '/api/v1/secrets/reencrypt' }],
  ])('%s', (line, expected) => {
    const { command } = parseArgs(line.split(' '), NOW);
    if (command.name === 'help') throw new Error('parsed as help');
    expect(requestFor(command)).toEqual(expected);
  });

  it('understands --json, --wait and help anywhere', () => {
    expect(parseArgs(['replay', 'd', '--wait', '--since', '5m', '--json'], NOW)).toEqual({
      command: { name: 'replay', destinationId: 'd', since: '2024-05-01T11:55:00.000Z', wait: true },
      json: true,
    });
    expect(parseArgs([], NOW).command).toEqual({ name: 'help' });
    expect(parseArgs(['dlq', 'list', '--help'], NOW).command).toEqual({ name: 'help' });
  });

  it.each([
    ['dlq redrive', /needs --all/],
    ['dlq redrive --all --destination d', /cannot be combined/],
    ['dlq', /dlq takes list, show or redrive/],
    ['dlq purge', /not 'purge'/],
    ['dlq show', /expected a task id/],
    ['dlq list --outcome x', /unknown option --outcome/],
    ['dlq list --limit lots', /whole number/],
    ['dlq list --since', /--since needs a value/],
    ['attempts', /expected a destination id/],
    ['replay d', /replay needs --since/],
    ['replay d --since tomorrow', /neither an ISO 8601 time nor a duration/],
    ['frobnicate', /unknown command 'frobnicate'/],
    ['secrets', /secrets takes reencrypt/],
    ['secrets rotate', /not 'rotate'/],
    ['secrets reencrypt now', /unexpected argument 'now'/],
  ])('refuses `%s`', (line, message) => {
    expect(() => parseArgs(line.split(' '), NOW)).toThrow(UsageError);
    expect(() => parseArgs(line.split(' '), NOW)).toThrow(message);
  });

  it.each([
    ['30m', '2024-05-01T11:30:00.000Z'],
    ['1d', '2024-04-30T12:00:00.000Z'],
    ['2024-05-01T10:00:00+02:00', '2024-05-01T08:00:00.000Z'],
    ['2024-05-01', '2024-05-01T00:00:00.000Z'],
    ['2024-05-01T10:00Z', '2024-05-01T10:00:00.000Z'],
    ['2024-05-01T10:00:00.250-05:00', '2024-05-01T15:00:00.250Z'],
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
  ])('reads the time %s', (text, iso) => {
    expect(parseTime(text, NOW)).toBe(iso);
  });

  // A time without a zone was read in the shell's time zone, moving a redrive's or replay's
  // range by hours; an impossible date was rolled over into the next month.
  it.each([
    ['2024-05-01T10:00:00', /no time zone: add Z/],
    ['2024-05-01T10:00', /no time zone/],
    ['2024-05-01 10:00', /no time zone/],
    ['2024-02-30', /not a valid date/],
    ['2023-02-29T00:00:00Z', /not a valid date/],
    ['2024-05-01T24:00:00Z', /not a valid date/],
    ['2024-05-01T10:00:00+0200', /neither an ISO 8601 time/],
    ['2024-05-01trailing', /neither an ISO 8601 time/],
  ])('refuses the time %s', (text, message) => {
    expect(() => parseTime(text, NOW)).toThrow(UsageError);
    expect(() => parseTime(text, NOW)).toThrow(message);
  });
});
