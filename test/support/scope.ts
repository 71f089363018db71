import { startTestApp, type TestApp } from './app';
import { startReceiver, type Receiver } from './receiver';

/**
 * Apps and receivers a test starts, all stopped after each test. Call once per describe block.
 */
export function testScope() {
  const apps: TestApp[] = [];
  const receivers: Receiver[] = [];

  afterEach(async () => {
    await Promise.all(apps.splice(0).map((a) => a.stop()));
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  return {
    async app(env: Record<string, string> = {}): Promise<TestApp> {
      const a = await startTestApp(env);
      apps.push(a);
      return a;
    },
    async receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
      const r = await startReceiver(...args);
      receivers.push(r);
      return r;
    },
    /** Stops an app now (e.g. to restart on the same topics) instead of after the test. */
    async stop(app: TestApp): Promise<void> {
      apps.splice(apps.indexOf(app), 1);
      await app.stop();
    },
  };
}
