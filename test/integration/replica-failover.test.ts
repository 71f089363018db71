import type { ChildProcess } from 'node:child_process';
import type { Admin } from 'kafkajs';
import { LOOPBACK_NETWORKS, TEST_SECRETS_KEY, uniquePrefix } from '../support/app';
import { eventually } from '../support/eventually';
import { assignedPartitions, describeGroup, groupAdmin } from '../support/groups';
import { createDestination, createSource, sendTracking } from '../support/hookline';
import { exited, spawnHookline } from '../support/process';
import { testScope } from '../support/scope';

const SESSION_TIMEOUT_MS = 6_000;
const PARTITIONS = 6;
const TOTAL_EVENTS = 900;
const BATCH = 30;

/**
 * Three full replicas (every role) on one cluster and one set of topics: two in this process,
 * one a child process that is killed with SIGKILL in the middle of a load. Nothing is lost (every
 * event reaches the receiver at least once), and the two survivors hold all of the router's and
 * the worker's partitions once the killed member's session has expired. The takeover time and the
 * duplicates are printed: bench/results/2026-11-23-replica-failover.md records past runs.
 */
describe('three replicas, one killed mid-load', () => {
  const { app, receiver } = testScope();
  let child: ChildProcess | undefined;
  let admin: Admin | undefined;

  afterEach(async () => {
    child?.kill('SIGKILL');
    if (child) await exited(child);
    child = undefined;
    await admin?.disconnect();
  });

  it('loses nothing, and the survivors take the killed replica’s partitions', async () => {
    const prefix = uniquePrefix();
    const env = {
      HOOKLINE_TOPIC_PREFIX: prefix,
      HOOKLINE_TOPIC_PARTITIONS: String(PARTITIONS),
      HOOKLINE_KAFKA_SESSION_TIMEOUT: `${SESSION_TIMEOUT_MS}ms`,
      HOOKLINE_DESTINATION_CONCURRENCY: '4',
    };
    const a = await app({ ...env, KAFKA_CLIENT_ID: 'replica-a' });
    const r = await receiver(() => ({ status: 200, delayMs: 20 }));
    const src = await createSource(a);
    await createDestination(a, { sourceId: src.id, webhooks: [{ url: r.url }] });
    child = spawnHookline({
      ...env,
      KAFKA_CLIENT_ID: 'replica-c',
      KAFKA_BROKERS: process.env.KAFKA_BROKERS!,
      SCHEMA_REGISTRY_URL: process.env.SCHEMA_REGISTRY_URL!,
      HOOKLINE_HTTP_PORT: '0',
      HOOKLINE_HTTP_HOST: '127.0.0.1',
      HOOKLINE_ADMIN_TOKEN: 'replica-c-token',
      HOOKLINE_SECRETS_KEY: TEST_SECRETS_KEY,
      HOOKLINE_ALLOWED_NETWORKS: LOOPBACK_NETWORKS,
    });
    await app({ ...env, KAFKA_CLIENT_ID: 'replica-b' });

    // The groups settle with three members, each holding partitions (the child included).
    admin = await groupAdmin();
    const groups = [`${prefix}.router`, `${prefix}.worker`];
    const before = new Map<string, string[]>();
    for (const groupId of groups) {
      const view = await eventually(
        async () => {
          const v = await describeGroup(admin!, groupId);
          const settled = v.state === 'Stable' && v.members.length === 3;
          return settled && v.members.every((m) => m.partitions.length > 0) ? v : undefined;
        },
        { what: `${groupId}: three members with partitions`, timeoutMs: 90_000, intervalMs: 250 },
      );
      before.set(groupId, assignedPartitions(view));
    }

    // Load, with the kill in the middle of it.
    const ids = Array.from({ length: TOTAL_EVENTS }, (_, i) => `load-${i}`);
    let killedAtMs = 0;
    for (let start = 0; start < TOTAL_EVENTS; start += BATCH) {
      const batch = ids.slice(start, start + BATCH).map((messageId, i) => ({
        type: 'track',
        userId: `user-${(start + i) % 97}`,
        event: 'Load',
        messageId,
      }));
      expect((await sendTracking(a, src.writeKey, '/v1/batch', { batch })).status).toBe(200);
      if (killedAtMs === 0 && start >= TOTAL_EVENTS / 3 && r.requests.length > 0) {
        child!.kill('SIGKILL');
        killedAtMs = Date.now();
      }
    }
    expect(killedAtMs).toBeGreaterThan(0);
    await exited(child!);
    const deliveredAtKill = r.requests.filter((q) => q.atMs <= killedAtMs).length;
    expect(deliveredAtKill).toBeLessThan(TOTAL_EVENTS);

    // Takeover: the two survivors hold every partition the three held.
    const takeoverMs: Record<string, number> = {};
    await Promise.all(
      groups.map(async (groupId) => {
        await eventually(
          async () => {
            const v = await describeGroup(admin!, groupId);
            const survivorsOnly = v.members.every((m) => m.clientId !== 'replica-c');
            const whole = assignedPartitions(v).join() === before.get(groupId)!.join();
            return v.state === 'Stable' && v.members.length === 2 && survivorsOnly && whole;
          },
          { what: `${groupId}: the survivors hold every partition`, timeoutMs: 60_000, intervalMs: 100 },
        );
        takeoverMs[groupId] = Date.now() - killedAtMs;
      }),
    );

    // Nothing lost: every event delivered at least once.
    const messageIds = () => r.requests.map((q) => JSON.parse(q.body.toString()).messageId as string);
    await eventually(() => new Set(messageIds()).size === TOTAL_EVENTS || undefined, {
      what: `all ${TOTAL_EVENTS} events delivered`,
      timeoutMs: 120_000,
    });
    expect([...new Set(messageIds())].sort()).toEqual([...ids].sort());
    const duplicates = messageIds().length - TOTAL_EVENTS;
    process.stdout.write(
      `replica failover: session timeout ${SESSION_TIMEOUT_MS} ms; takeover after SIGKILL ` +
        `${JSON.stringify(takeoverMs)}; ${deliveredAtKill}/${TOTAL_EVENTS} delivered at the kill; ` +
        `${duplicates} duplicate deliveries\n`,
    );
  }, 300_000);
});
