import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  LOOPBACK_NETWORKS,
  TEST_SECRETS_KEY,
  startTestApp,
  uniquePrefix,
  type TestApp,
} from '../support/app';
import { announcements, sendWithSegment } from '../support/audiences';
import { eventually } from '../support/eventually';
import { createDestination, createSource } from '../support/hookline';
import { exited, spawnHookline } from '../support/process';
import { startReceiver, type Receiver } from '../support/receiver';

/**
 * The audience processor killed with SIGKILL while it announces: its replacement re-does the
 * unfinished transaction and nothing before it. Every member gets exactly one `true`, none is lost.
 * Run with the default cache and with a cache of one user, where nearly every state the processor
 * reads comes from its store on disk, rebuilt from the state topic after the kill.
 */
describe.each([
  ['the default cache', {}],
  ['a cache of one user', { HOOKLINE_AUDIENCE_CACHE_USERS: '1' }],
])('audience processor killed mid-way, %s', (_name, cacheEnv) => {
  let t: TestApp;
  let r: Receiver;
  const children: ChildProcess[] = [];
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hookline-audience-crash-'));

  afterAll(async () => {
    for (const c of children) c.kill('SIGKILL');
    await Promise.all(children.map(exited));
    await r?.close();
    await t?.stop();
    fs.rmSync(stateDir, { recursive: true, force: true });
  });

  it('SIGKILL, restart: no second true to any member, no change lost', async () => {
    const prefix = uniquePrefix();
    t = await startTestApp({ HOOKLINE_TOPIC_PREFIX: prefix, HOOKLINE_ROLES: 'ingest,router,worker' });
    r = await startReceiver();
    const source = await createSource(t);
    await createDestination(t, { sourceId: source.id, webhooks: [{ url: r.url }] });
    const created = await t.admin<{ id: string }>('POST', '/api/v1/audiences', {
      sourceId: source.id,
      name: 'Pro Users',
      rule: { trait: { name: 'plan', equals: 'pro' } },
    });
    expect(created.status).toBe(201);
    const env = {
      KAFKA_BROKERS: process.env.KAFKA_BROKERS!,
      SCHEMA_REGISTRY_URL: process.env.SCHEMA_REGISTRY_URL!,
      HOOKLINE_TOPIC_PREFIX: prefix,
      HOOKLINE_TOPIC_PARTITIONS: '3',
      HOOKLINE_ROLES: 'audiences',
      HOOKLINE_HTTP_PORT: '0',
      HOOKLINE_HTTP_HOST: '127.0.0.1',
      HOOKLINE_ADMIN_TOKEN: 'audiences-token',
      HOOKLINE_SECRETS_KEY: TEST_SECRETS_KEY,
      HOOKLINE_KAFKA_SESSION_TIMEOUT: '6s',
      HOOKLINE_ALLOWED_NETWORKS: LOOPBACK_NETWORKS,
      HOOKLINE_AUDIENCE_STATE_DIR: stateDir,
      ...cacheEnv,
    };
    const first = spawnHookline(env);
    children.push(first);

    // Users keep arriving, in rounds, while the first processor announces and is killed.
    const rounds = 12;
    const perRound = 25;
    const user = (round: number, i: number) => `${source.id}-${round}-${i}`;
    const sending = (async () => {
      for (let round = 0; round < rounds; round++) {
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
    expect(fs.readdirSync(stateDir)).toEqual([]); // the stores were unlinked when opened
    const beforeKill = announcements(r).length;
    children.push(spawnHookline(env));
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
