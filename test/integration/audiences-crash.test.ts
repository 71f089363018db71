import fs from 'node:fs';
import { startProcessorRig, type ProcessorRig } from '../support/audience-processes';
import { announcements, sendWithSegment } from '../support/audiences';
import { eventually } from '../support/eventually';
import { exited } from '../support/process';

/**
 * The audience processor killed with SIGKILL while it announces: its replacement re-does the
 * unfinished transaction and nothing before it. Every member gets exactly one `true`, none is lost.
 * Run with the default cache and with a cache of one user, where nearly every state the processor
 * reads comes from its store on disk, rebuilt from the state topic after the kill. A short
 * evaluation interval, so that the kill falls among many commits.
 */
describe.each([
  ['the default cache', {}],
  ['a cache of one user', { HOOKLINE_AUDIENCE_CACHE_USERS: '1' }],
])('audience processor killed mid-way, %s', (_name, cacheEnv) => {
  let rig: ProcessorRig | undefined;

  afterAll(async () => {
    await rig?.stop();
  });

  it('SIGKILL, restart: no second true to any member, no change lost', async () => {
    rig = await startProcessorRig();
    const { t, r, source } = rig;
    const env = { HOOKLINE_AUDIENCE_EVALUATE_INTERVAL: '100ms', ...cacheEnv };
    const first = rig.spawn(env);

    // Users keep arriving, in rounds, while the first processor announces and is killed. The
    // second half of the rounds waits for the kill, so that, however fast the first processor
    // is on the day, users are left for its replacement to announce.
    const rounds = 12;
    const perRound = 25;
    const user = (round: number, i: number) => `${source.id}-${round}-${i}`;
    let markKilled!: () => void;
    const killed = new Promise<void>((resolve) => (markKilled = resolve));
    const sending = (async () => {
      for (let round = 0; round < rounds; round++) {
        if (round === rounds / 2) await killed;
        const calls = Array.from({ length: perRound }, (_, i) => ({
          type: 'identify' as const,
          userId: user(round, i),
          traits: { plan: 'pro' },
        }));
        await sendWithSegment(t.baseUrl, source.writeKey, calls);
      }
    })();
    await eventually(() => announcements(r).length >= 30, {
      what: 'the first announcements',
      timeoutMs: 60_000,
    });
    first.kill('SIGKILL');
    await exited(first);
    expect(fs.readdirSync(rig.stateDir)).toEqual([]); // the stores were unlinked when opened
    const beforeKill = announcements(r).length;
    markKilled();
    rig.spawn(env);
    await sending;

    const total = rounds * perRound;
    await eventually(() => new Set(announcements(r).map((a) => a.userId)).size === total, {
      what: `all ${total} members announced`,
      timeoutMs: 120_000,
    });
    // Changes after the restart, to users of before the kill, are announced once too.
    const leaving = Array.from({ length: 5 }, (_, i) => user(0, i));
    await sendWithSegment(
      t.baseUrl,
      source.writeKey,
      leaving.map((userId) => ({ type: 'identify' as const, userId, traits: { plan: 'free' } })),
    );
    await eventually(() => announcements(r).filter((a) => a.value === false).length >= leaving.length, {
      what: 'the leaves',
      timeoutMs: 60_000,
    });
    const all = announcements(r);
    expect(beforeKill).toBeLessThan(total);
    expect(all.filter((a) => a.value === true)).toHaveLength(total);
    expect(
      all
        .filter((a) => a.value === false)
        .map((a) => a.userId)
        .sort(),
    ).toEqual([...leaving].sort());
    expect(new Set(all.map((a) => a.messageId)).size).toBe(all.length);
  }, 300_000); // a processor start, a kill, a session timeout and a restart, on a loaded machine
});
