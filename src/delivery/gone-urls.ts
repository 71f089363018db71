import type { Logger } from '../observability/logger';

/**
 * Stops calls to webhook URLs that answered 410 Gone: a catalog change, seen by every process.
 * Once per URL and process: further 410s of tasks in flight meanwhile add nothing; a failed
 * catalog write is tried again at the next 410.
 */
export class GoneUrls {
  private readonly gone = new Set<string>();

  constructor(
    private readonly options: {
      disableWebhook: (destinationId: string, url: string, reason: string) => Promise<unknown>;
      onDisabled: (destinationId: string) => void;
      logger: Logger;
    },
  ) {}

  async disable(destinationId: string, url: string): Promise<void> {
    const key = `${destinationId} ${url}`;
    if (this.gone.has(key)) return;
    this.gone.add(key);
    try {
      await this.options.disableWebhook(destinationId, url, 'http_410');
      this.options.onDisabled(destinationId);
    } catch (err) {
      this.gone.delete(key); // the next 410 tries again
      this.options.logger.error(
        { err: (err as Error).message, destinationId },
        'could not disable a webhook URL that answered 410',
      );
    }
  }
}
