import { findFreePorts } from '../../tools/devstack/ports';
import { TEST_SECRETS_KEY } from '../support/app';
import { eventually } from '../support/eventually';
import { exited, spawnHookline } from '../support/process';

/**
 * A process asked to stop while it is still waiting for its brokers to become reachable (an
 * orchestrator's rollout or scale-down while Kafka is away) stops at once, with code 0, instead of
 * waiting out start-up's minute of connection attempts first. No broker listens on the port given.
 */
describe('stopping while the brokers are unreachable at start', () => {
  /** Longer than any wait between two connection attempts (5 s), far shorter than their minute. */
  const STOP_WITHIN_MS = 15_000;

  it.each([1, 2])(
    'exits soon after SIGTERM with HOOKLINE_WORKERS=%i',
    async (workers) => {
      const [deadPort, httpPort] = await findFreePorts({ count: 2 });
      const child = spawnHookline({
        KAFKA_BROKERS: `127.0.0.1:${deadPort}`,
        SCHEMA_REGISTRY_URL: process.env.SCHEMA_REGISTRY_URL!,
        HOOKLINE_WORKERS: String(workers),
        HOOKLINE_TOPIC_PREFIX: 'stop-while-connecting',
        HOOKLINE_HTTP_HOST: '127.0.0.1',
        HOOKLINE_HTTP_PORT: String(httpPort),
        HOOKLINE_ADMIN_TOKEN: 'stop-while-connecting-token',
        HOOKLINE_SECRETS_KEY: TEST_SECRETS_KEY,
      });
      try {
        // Connecting has failed a few times (kafkajs's own tries, then ours: logged at warn).
        await eventually(
          () =>
            (child.output.join('').match(/transient failure; retrying/g)?.length ?? 0) >= 3 ||
            child.exitCode !== null,
          { what: 'three failed connection attempts', timeoutMs: 60_000, intervalMs: 100 },
        );
        expect(child.exitCode).toBeNull();
        child.kill('SIGTERM');
        const code = await Promise.race([
          exited(child),
          new Promise<string>((r) => setTimeout(() => r('still running'), STOP_WITHIN_MS)),
        ]);
        expect(code).toBe(0);
      } finally {
        child.kill('SIGKILL');
        await exited(child);
      }
    },
    120_000,
  );
});
