import { runCli, type CliIo } from '../../../src/cli/main';
import { attemptTable, deadLetterTable, table } from '../../../src/cli/format';

function io(responses: { status: number; body: unknown }[]) {
  const out: string[] = [];
  const err: string[] = [];
  const calls: { url: string; init: RequestInit }[] = [];
  const cli: CliIo = {
    env: { HOOKLINE_URL: 'http://hookline:9090/', HOOKLINE_ADMIN_TOKEN: 'tok' },
    fetch: (async (url: string, init: RequestInit) => {
      calls.push({ url, init });
      const next = responses.shift()!;
      return new Response(JSON.stringify(next.body), { status: next.status });
    }) as typeof fetch,
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
    now: () => 0,
    sleep: async () => undefined,
  };
  return { cli, out, err, calls };
}

describe('hookline CLI', () => {
  it('calls the admin API with the token and prints a table', async () => {
    const { cli, out, calls } = io([
      {
        status: 200,
        body: {
          deadLetters: [
            {
              kind: 'task',
              id: 't1',
              destinationId: 'd',
              reason: 'retry_cutoff',
              attempts: 3,
              deadLetteredAt: 'T2',
            },
            {
              kind: 'undecodable',
              id: 'undecodable:0:1',
              reason: 'corrupt',
              deadLetteredAt: 'T1',
              redrivenAt: undefined,
            },
          ],
          total: 3,
        },
      },
    ]);
    expect(await runCli(['dlq', 'list'], cli)).toBe(0);
    expect(calls[0]!.url).toBe('http://hookline:9090/api/v1/dead-letters');
    expect(calls[0]!.init.headers).toMatchObject({ authorization: 'Bearer tok' });
    expect(out.join('')).toBe(
      [
        'DEAD-LETTERED AT  KIND         ID               DESTINATION  REASON        ATTEMPTS  REDRIVEN AT',
        'T2                task         t1               d            retry_cutoff  3         -',
        'T1                undecodable  undecodable:0:1  -            corrupt       -         -',
        '(2 of 3; use --limit for more)',
        '',
      ].join('\n'),
    );
  });

  it('prints the JSON answer with --json', async () => {
    const { cli, out } = io([{ status: 200, body: { destinationId: 'd', attempts: [] } }]);
    expect(await runCli(['attempts', 'd', '--json'], cli)).toBe(0);
    expect(JSON.parse(out.join(''))).toEqual({ destinationId: 'd', attempts: [] });
  });

  it('reports API errors with their code and exits 1', async () => {
    const { cli, err } = io([
      { status: 404, body: { error: 'dead_letter_not_found', message: 'no dead letter x' } },
    ]);
    expect(await runCli(['dlq', 'show', 'x'], cli)).toBe(1);
    expect(err.join('')).toBe('hookline: HTTP 404 dead_letter_not_found: no dead letter x\n');
  });

  it('exits 2 on bad usage, without calling the API', async () => {
    const { cli, err, calls } = io([]);
    expect(await runCli(['dlq', 'redrive'], cli)).toBe(2);
    expect(err.join('')).toMatch(/needs --all[\s\S]*Usage: hookline/);
    expect(calls).toEqual([]);
  });

  it('follows a replay to its end with --wait', async () => {
    const progress = { id: 'rpl_1', eventsRead: 0, eventsTotal: 2, tasksWritten: 0 };
    const { cli, out, calls } = io([
      { status: 202, body: { ...progress, done: false, state: 'running' } },
      { status: 200, body: { ...progress, eventsRead: 1, done: false, state: 'running' } },
      { status: 200, body: { ...progress, eventsRead: 2, tasksWritten: 2, done: true, state: 'done' } },
    ]);
    expect(await runCli(['replay', 'd', '--since', '1h', '--wait'], cli)).toBe(0);
    expect(calls.map((c) => c.url)).toEqual([
      'http://hookline:9090/api/v1/destinations/d/replay',
      'http://hookline:9090/api/v1/replays/rpl_1',
      'http://hookline:9090/api/v1/replays/rpl_1',
    ]);
    expect(JSON.parse(out.join(''))).toMatchObject({ state: 'done', tasksWritten: 2 });
  });
});

describe('CLI tables', () => {
  it('aligns columns and leaves no trailing spaces', () => {
    expect(
      table(
        ['A', 'LONG'],
        [
          ['xyz', ''],
          ['1', '2'],
        ],
      ),
    ).toBe('A    LONG\nxyz\n1    2');
  });

  it('summarises attempts with each URL’s status or result', () => {
    const text = attemptTable({
      attempts: [
        {
          at: 'T',
          messageId: 'm',
          attempt: 2,
          outcome: 'retry_scheduled',
          detail: '1m',
          durationMs: 12,
          urls: [
            { urlIndex: 0, result: 'timeout' },
            { urlIndex: 1, result: 'http_5xx', status: 502 },
          ],
        },
      ],
    });
    expect(text.split('\n')[1]).toBe(
      'T   m        2        retry_scheduled  1m      12ms      #0:timeout,#1:502',
    );
  });

  it('says nothing about more when all are shown', () => {
    expect(deadLetterTable({ deadLetters: [], total: 0 })).not.toContain('use --limit');
  });
});
