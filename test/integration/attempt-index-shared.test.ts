import type { Admin } from 'kafkajs';
import { partitionOfKey } from '../../src/kafka/partitioner';
import { ADMIN_TOKEN, type TestApp } from '../support/app';
import { eventually } from '../support/eventually';
import { describeGroup, groupAdmin } from '../support/groups';
import { createDestination, createSource, sendTracking } from '../support/hookline';
import { childEnv, exited, spawnHookline } from '../support/process';
import { testScope } from '../support/scope';

const PARTITIONS = 3;
const EVENTS = 4;
const MESSAGES = Array.from({ length: EVENTS }, (_, n) => `m${n}`);

/**
 * HOOKLINE_ATTEMPT_INDEX=shared: three processes (two in this test's process, one a child) split
 * the partitions of `<prefix>.attempts` (group `<prefix>.attempt-index`), each keeping only its
 * share, and each answers for every destination, passing the query to the process keeping it.
 * When the child is killed with SIGKILL, the other two take its partition over once its session
 * times out: one reads its window, both go on with their own, and they answer in full.
 */
describe('a shared attempt index', () => {
  const { app, receiver } = testScope();
  let admin: Admin | undefined;

  afterAll(async () => {
    await admin?.disconnect();
  });

  afterEach(() => {
    child?.kill('SIGKILL');
  });
  let child: ReturnType<typeof spawnHookline> | undefined;

  it('splits the attempts between the processes, answers for all of them on each, and survives one killed', async () => {
    const env = {
      HOOKLINE_ATTEMPT_INDEX: 'shared',
      HOOKLINE_TOPIC_PARTITIONS: String(PARTITIONS),
      HOOKLINE_KAFKA_SESSION_TIMEOUT: '6s',
    };
    const first = await app(env);
    const apps = [first, await app({ ...env, HOOKLINE_TOPIC_PREFIX: first.prefix })];
    child = spawnHookline(
      childEnv(
        { prefix: first.prefix, roles: 'ingest', adminToken: ADMIN_TOKEN },
        { HOOKLINE_ATTEMPT_INDEX: 'shared' },
      ),
    );
    const groupId = `${first.prefix}.attempt-index`;
    admin = await groupAdmin();
    const settled = async (members: number) =>
      eventually(
        async () => {
          const view = await describeGroup(admin!, groupId);
          const held = view.members.flatMap((m) => m.partitions);
          return view.state === 'Stable' && view.members.length === members && held.length === PARTITIONS
            ? view
            : undefined;
        },
        {
          what: `${groupId}: ${members} members holding the ${PARTITIONS} partitions`,
          timeoutMs: 60_000,
          intervalMs: 250,
        },
      );
    const view = await settled(3);
    expect(view.members.every((m) => m.partitions.length === 1)).toBe(true);

    // Destinations on every partition of the attempts topic (records are keyed by destination).
    const src = await createSource(first);
    const r = await receiver(() => ({ status: 200 }));
    const destinations: string[] = [];
    for (let i = 0; i < 30 && new Set(destinations.map(partitionOf)).size < PARTITIONS; i++)
      destinations.push(await createDestination(first, { sourceId: src.id, webhooks: [{ url: r.url }] }));
    expect(new Set(destinations.map(partitionOf)).size).toBe(PARTITIONS);
    const send = async (messageIds: string[]) => {
      const expected = r.requests.length + messageIds.length * destinations.length;
      for (const messageId of messageIds) {
        const sent = await sendTracking(first, src.writeKey, '/v1/track', {
          userId: 'u',
          event: 'E',
          messageId,
        });
        expect(sent.status).toBe(200);
      }
      await eventually(() => r.requests.length === expected, { what: 'every delivery', timeoutMs: 60_000 });
    };
    await send(MESSAGES);

    const answersInFull = (asked: TestApp[], events = EVENTS) =>
      Promise.all(
        asked.flatMap((t) =>
          destinations.map((id) =>
            eventually(
              async () => {
                const res = await t.admin<{ attempts: { messageId: string }[] }>(
                  'GET',
                  `/api/v1/destinations/${id}/attempts`,
                );
                return res.status === 200 && res.body.attempts.length === events
                  ? res.body.attempts
                  : undefined;
              },
              { what: `${id}'s ${events} attempts through ${t.baseUrl}`, timeoutMs: 30_000, intervalMs: 200 },
            ),
          ),
        ),
      );
    for (const attempts of await answersInFull(apps))
      expect(attempts.map((a) => a.messageId).sort()).toEqual(MESSAGES);

    // Each keeps only its share.
    const kept = await Promise.all(apps.map(keptAttempts));
    expect(kept.reduce((a, b) => a + b, 0)).toBeLessThan(EVENTS * destinations.length); // the child keeps the rest
    expect(Math.min(...kept)).toBeGreaterThan(0);

    // A query passed on is answered where it arrives, or refused (503): never passed on again.
    // Of the two processes here, one answers for a destination of its share, none for one of the
    // child's.
    const answering = await Promise.all(
      destinations.map(async (id) => {
        const statuses = await Promise.all(
          apps.map(async (t) => {
            const res = await fetch(`${t.adminUrl}/api/v1/destinations/${id}/attempts`, {
              headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-hookline-forwarded': '1' },
            });
            const body = (await res.json()) as { error?: string };
            return res.status === 200 ? 200 : `${res.status} ${body.error}`;
          }),
        );
        expect(statuses.filter((s) => s !== 200)).toEqual(
          Array(statuses.filter((s) => s !== 200).length).fill('503 attempt_index_unavailable'),
        );
        return statuses.filter((s) => s === 200).length;
      }),
    );
    expect(new Set(answering)).toEqual(new Set([0, 1]));

    // The child is killed: its partition is taken over after its session, and every destination
    // is answered in full through both processes left. Each keeps its own partition (the
    // assignment is sticky) and goes on with it: the only attempts read again are the child's.
    const childsAttempts = EVENTS * destinations.length - kept.reduce((a, b) => a + b, 0);
    const readBefore = await Promise.all(apps.map(readAttempts));
    child!.kill('SIGKILL');
    await exited(child!);
    const after = await settled(2);
    expect(after.members.map((m) => m.partitions.length).sort()).toEqual([1, 2]);
    for (const attempts of await answersInFull(apps))
      expect(attempts.map((a) => a.messageId).sort()).toEqual(MESSAGES);
    const keptAfter = await Promise.all(apps.map(keptAttempts));
    expect(keptAfter.reduce((a, b) => a + b, 0)).toBe(EVENTS * destinations.length);
    const readNow = await Promise.all(apps.map(readAttempts));
    expect(readNow.map((n, i) => n - readBefore[i]!).sort((a, b) => a - b)).toEqual([0, childsAttempts]);

    // The partitions kept are still followed: a new attempt of every destination shows up.
    await send(['m4']);
    for (const attempts of await answersInFull(apps, EVENTS + 1))
      expect(attempts.map((a) => a.messageId).sort()).toEqual([...MESSAGES, 'm4']);
  }, 240_000);
});

function partitionOf(destinationId: string): number {
  return partitionOfKey(destinationId, PARTITIONS);
}

async function keptAttempts(t: TestApp): Promise<number> {
  return metric(t, 'hookline_attempt_index_attempts');
}

async function readAttempts(t: TestApp): Promise<number> {
  return metric(t, 'hookline_attempt_index_read_total');
}

async function metric(t: TestApp, name: string): Promise<number> {
  const text = await (await fetch(`${t.baseUrl}/metrics`)).text();
  return Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1] ?? 'NaN');
}
