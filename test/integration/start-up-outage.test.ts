import { Kafka } from 'kafkajs';
import pino from 'pino';
import { createLogger } from '../../src/observability/logger';
import { launchLocalStack, type LocalStack } from '../../tools/devstack';
import { findFreePorts } from '../../tools/devstack/ports';
import { TEST_SECRETS_KEY } from '../support/app';
import { eventually } from '../support/eventually';
import { exited, spawnHookline } from '../support/process';

/**
 * A worker process whose broker is kill -9'd while it starts (the chaos run's worker restarted
 * just before a broker kill): start-up waits the outage out and the process becomes ready once the
 * broker is back, instead of exiting with code 1 (src/process/start-up.ts). On a broker of its own (the
 * global setup's cluster is shared with other test files, so it is never killed).
 */
jest.setTimeout(420_000);

let stack: LocalStack | undefined;
afterAll(async () => {
  await stack?.stop();
});

test('a worker whose broker dies during start-up starts once the broker is back', async () => {
  stack = await launchLocalStack({
    logger: createLogger({ name: 'start-up-outage', level: 'warn', destination: pino.destination(2) }),
  });
  const [port] = await findFreePorts({ count: 1 });
  const child = spawnHookline({
    KAFKA_BROKERS: stack.kafkaBrokers.join(','),
    SCHEMA_REGISTRY_URL: stack.schemaRegistryUrl,
    HOOKLINE_ROLES: 'worker',
    HOOKLINE_HTTP_HOST: '127.0.0.1',
    HOOKLINE_HTTP_PORT: String(port),
    HOOKLINE_ADMIN_TOKEN: 'start-up-outage-token',
    HOOKLINE_SECRETS_KEY: TEST_SECRETS_KEY,
    HOOKLINE_KAFKA_SESSION_TIMEOUT: '6s',
    // The worker logs when its delay consumer started: the broker dies then, with the audiences
    // and the retry group's join still ahead.
    HOOKLINE_LOG_LEVEL: 'info',
  });
  let exitCode: number | null | undefined;
  void exited(child).then((code) => (exitCode = code));
  try {
    await eventually(
      () => child.output.join('').includes('delay consumer started') || exitCode !== undefined,
      {
        timeoutMs: 120_000,
        intervalMs: 5,
        what: 'the worker to start its delay consumer',
      },
    );
    expect({ exitCode, output: child.output.join('').slice(-2_000) }).toMatchObject({ exitCode: undefined });
    await stack.kafka.kill();
    await new Promise((r) => setTimeout(r, 3_000));
    await stack.kafka.restart();

    await eventually(
      async () => {
        if (exitCode !== undefined) return true;
        const res = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2_000) });
        await res.arrayBuffer();
        return res.status === 200;
      },
      { timeoutMs: 180_000, intervalMs: 500, what: 'the worker to be ready or to exit' },
    ).catch(() => undefined);
    const tail = child.output
      .join('')
      .split('\n')
      .filter((l) => !l.includes('ECONNREFUSED'))
      .slice(-15)
      .join('\n');
    // An exit here once was code 0, between two start-up attempts: say what the process did last.
    if (exitCode !== undefined) console.error(`the worker exited with ${exitCode}; its log ends:\n${tail}`);
    expect({ exitCode, tail }).toMatchObject({ exitCode: undefined });
    const res = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect({ status: res.status, body: await res.text(), tail }).toMatchObject({ status: 200 });

    // One member per group: no consumer of a failed start-up attempt came back to life (kafkajs
    // restarts a consumer that crashed while being stopped), holding partitions it never works on.
    const admin = new Kafka({
      clientId: 'start-up-outage',
      brokers: stack.kafkaBrokers,
      logLevel: 0,
    }).admin();
    await admin.connect();
    try {
      const members = await eventually(
        async () => {
          const { groups } = await admin.describeGroups(['hookline.worker', 'hookline.retry']);
          return groups.every((g) => g.state === 'Stable') && groups.map((g) => g.members.length);
        },
        { timeoutMs: 60_000, intervalMs: 500, what: 'the worker groups to be stable' },
      );
      if (JSON.stringify(members) !== '[1,1]') {
        // Every join, crash and restart this process logged, to tell which member is extra.
        const lines = child.output.join('').split('\n');
        const joins = lines.filter((l) =>
          /group joined|Crash|Restarting the consumer|start-up failed/.test(l),
        );
        console.error(`members ${JSON.stringify(members)}; the worker's log:\n${joins.join('\n')}`);
      }
      expect(members).toEqual([1, 1]);
    } finally {
      await admin.disconnect();
    }
  } finally {
    child.kill('SIGKILL');
    await exited(child);
  }
});
