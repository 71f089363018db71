import { runCli, type CliIo } from '../../src/cli/main';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../support/app';
import { eventually } from '../support/eventually';
import { createDestination, createSource, sendTracking } from '../support/hookline';
import { startReceiver, type Receiver } from '../support/receiver';

/** The `hookline` CLI against a real process: dead letters, redrive, attempts, replay. */
describe('hookline CLI', () => {
  let t: TestApp;
  let r: Receiver;

  beforeAll(async () => {
    t = await startTestApp();
    r = await startReceiver();
  });

  afterAll(async () => {
    await r.close();
    await t.stop();
  });

  async function hookline(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
    let out = '';
    let err = '';
    const io: CliIo = {
      env: { HOOKLINE_URL: t.baseUrl, HOOKLINE_ADMIN_TOKEN: ADMIN_TOKEN },
      fetch,
      stdout: (text) => void (out += text),
      stderr: (text) => void (err += text),
      now: Date.now,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    };
    return { code: await runCli(argv, io), out, err };
  }

  it('lists, shows and redrives a dead letter, lists its attempts, and replays', async () => {
    const since = new Date().toISOString();
    const src = await createSource(t);
    r.respondWith(() => ({ status: 400 })); // not retriable: dead-lettered at once
    const destinationId = await createDestination(t, { sourceId: src.id, webhooks: [{ url: r.url }] });
    await sendTracking(t, src.writeKey, '/v1/track', { userId: 'u', event: 'Refused', messageId: 'm-cli' });
    const taskId = `${src.id}:m-cli:${destinationId}`;

    const listed = await eventually(
      async () => {
        const res = await hookline('dlq', 'list', '--destination', destinationId);
        return res.code === 0 && res.out.includes(taskId) ? res.out : undefined;
      },
      { what: 'the dead letter in `dlq list`' },
    );
    expect(listed.split('\n')[0]).toMatch(
      /^DEAD-LETTERED AT +KIND +ID +DESTINATION +REASON +ATTEMPTS +REDRIVEN AT$/,
    );
    expect(listed).toMatch(new RegExp(`task +${taskId} +${destinationId} +http_400 +1 +-`));

    const shown = await hookline('dlq', 'show', taskId);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.out)).toMatchObject({ taskId, reason: 'http_400', history: [{ status: 400 }] });

    r.respondWith(() => ({ status: 200 }));
    const redriven = await hookline('dlq', 'redrive', '--destination', destinationId);
    expect(JSON.parse(redriven.out)).toMatchObject({ redriven: 1, taskIds: [taskId] });
    await eventually(() => r.requests.length === 2 || undefined, { what: 'the redriven delivery' });

    const attempts = await eventually(
      async () => {
        const res = await hookline('attempts', destinationId, '--message-id', 'm-cli', '--json');
        const body = JSON.parse(res.out) as { attempts: { outcome: string }[] };
        return body.attempts.length === 2 ? body.attempts : undefined;
      },
      { what: 'both attempts listed' },
    );
    expect(attempts.map((a) => a.outcome)).toEqual(['delivered', 'dead_lettered']);

    const replay = await hookline('replay', destinationId, '--since', since, '--wait');
    expect(replay.code).toBe(0);
    expect(JSON.parse(replay.out)).toMatchObject({ state: 'done', tasksWritten: 1 });
    await eventually(() => r.requests.length === 3 || undefined, { what: 'the replayed delivery' });

    const missing = await hookline('dlq', 'show', 'no-such-task');
    expect(missing).toMatchObject({
      code: 1,
      err: 'hookline: HTTP 404 dead_letter_not_found: no dead letter no-such-task\n',
    });
  });
});
