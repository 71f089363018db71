import { startProcessorRig, type ProcessorRig } from '../support/audience-processes';
import { announcements, sendWithSegment } from '../support/audiences';
import { eventually } from '../support/eventually';
import { exited } from '../support/process';

/** Users the processor's debug lines say it applied and has not evaluated yet (latest line per partition). */
function appliedNotEvaluated(child: { output: string[] }): number {
  const latest = new Map<number, number>();
  for (const line of child.output.join('').split('\n')) {
    if (!line.includes('audience inputs applied, not evaluated yet')) continue;
    const { partition, users } = JSON.parse(line) as { partition: number; users: number };
    latest.set(partition, users);
  }
  return [...latest.values()].reduce((a, b) => a + b, 0);
}

/**
 * HOOKLINE_AUDIENCE_EVALUATE_INTERVAL: the processor applies events and evaluates the users they
 * touched only when the interval is over, committing both with the offsets. Stopped inside the
 * interval, with users applied and not evaluated: after SIGKILL the next processor applies their
 * events again and announces them; after SIGTERM the stop itself evaluates and commits them. In
 * both, every member gets exactly one `true`, none is lost.
 */
describe.each([
  ['SIGKILL', 'SIGKILL' as const],
  ['SIGTERM', 'SIGTERM' as const],
])('audience processor stopped inside its evaluation interval, %s', (_name, signal) => {
  let rig: ProcessorRig | undefined;

  afterAll(async () => {
    await rig?.stop();
  });

  it('users applied and not evaluated are announced once, after the restart or by the stop', async () => {
    rig = await startProcessorRig();
    const { t, r, source, audienceId } = rig;
    const env = (interval: string) => ({
      HOOKLINE_AUDIENCE_EVALUATE_INTERVAL: interval,
      HOOKLINE_LOG_LEVEL: 'debug',
    });
    // An interval far longer than the test: nothing is evaluated before the stop.
    const first = rig.spawn(env('1h'));
    await eventually(
      async () =>
        (await t.admin<{ state: string }>('GET', `/api/v1/audiences/${audienceId}`)).body.state === 'live',
      { what: 'the audience live', timeoutMs: 120_000 },
    );

    const users = Array.from({ length: 20 }, (_, i) => `${source.id}-${i}`);
    await sendWithSegment(
      t.baseUrl,
      source.writeKey,
      users.map((userId) => ({ type: 'identify' as const, userId, traits: { plan: 'pro' } })),
    );
    await eventually(() => appliedNotEvaluated(first) === users.length, {
      what: `the ${users.length} users applied by the first processor`,
      timeoutMs: 60_000,
    });
    expect(announcements(r)).toEqual([]);
    first.kill(signal);
    await exited(first);
    if (signal === 'SIGTERM') {
      // The stop evaluated and committed them: announced without any other processor.
      await eventually(() => announcements(r).length === users.length, {
        what: 'the announcements committed by the stop',
        timeoutMs: 60_000,
      });
    }

    rig.spawn(env('200ms'));
    await eventually(() => new Set(announcements(r).map((a) => a.userId)).size === users.length, {
      what: `all ${users.length} members announced`,
      timeoutMs: 120_000,
    });
    // A change after the restart is announced once too, and the earlier users get no second true.
    await sendWithSegment(t.baseUrl, source.writeKey, [
      { type: 'identify', userId: users[0]!, traits: { plan: 'free' } },
    ]);
    await eventually(() => announcements(r).some((a) => a.value === false), {
      what: 'the leave',
      timeoutMs: 60_000,
    });
    const all = announcements(r);
    expect(all.filter((a) => a.value === true).map((a) => a.userId)).toHaveLength(users.length);
    expect(new Set(all.filter((a) => a.value === true).map((a) => a.userId))).toEqual(new Set(users));
    expect(all.filter((a) => a.value === false).map((a) => a.userId)).toEqual([users[0]]);
    expect(new Set(all.map((a) => a.messageId)).size).toBe(all.length);
  }, 300_000); // two processor starts, a stop and (SIGKILL) a session timeout, on a loaded machine
});
