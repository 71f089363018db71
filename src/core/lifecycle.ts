import type { Logger } from '../observability/logger';

/**
 * Collects teardown steps as components start, and runs them in reverse order on stop, so a
 * consumer stops before the producer it writes to, and the producer before the client.
 */
export class Lifecycle {
  private readonly steps: { name: string; stop: () => Promise<void> | void }[] = [];
  private stopping: Promise<void> | undefined;

  constructor(private readonly logger: Logger) {}

  onStop(name: string, stop: () => Promise<void> | void): void {
    this.steps.push({ name, stop });
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      for (const step of this.steps.reverse()) {
        try {
          await step.stop();
          this.logger.debug({ component: step.name }, 'stopped');
        } catch (err) {
          this.logger.error({ err, component: step.name }, 'error while stopping');
        }
      }
    })();
    return this.stopping;
  }
}
