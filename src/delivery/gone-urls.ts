import type { Logger } from '../observability/logger';
import type { CatalogView } from '../records/catalog-model';

/**
 * Stops calls to webhook URLs that answered 410 Gone: a catalog change, seen by every process.
 *
 * Whether a URL is still to be disabled is read from the catalog this process materialises, not
 * remembered here: replacing the webhook list clears the `disabled` mark, and a URL re-added that
 * answers 410 again must be disabled again (a memo kept for the process's life skipped it until a
 * restart). The memo only holds the writes under way, so the 410s of tasks in flight meanwhile
 * add no second write; a failed write is tried again at the next 410. A write returns once its
 * record is applied here, so the catalog shows the mark by the time the memo forgets it; one that
 * found the URL already disabled (a write whose wait had timed out, applied since) is not counted.
 */
export class GoneUrls {
  private readonly writing = new Set<string>();

  constructor(
    private readonly options: {
      catalog: Pick<CatalogView, 'destination'>;
      /** Resolves to undefined when it changed nothing (the URL already disabled, or gone). */
      disableWebhook: (destinationId: string, url: string, reason: string) => Promise<unknown>;
      onDisabled: (destinationId: string) => void;
      logger: Logger;
    },
  ) {}

  async disable(destinationId: string, url: string): Promise<void> {
    const key = `${destinationId} ${url}`;
    if (this.writing.has(key) || !this.enabledInCatalog(destinationId, url)) return;
    this.writing.add(key);
    try {
      const changed = await this.options.disableWebhook(destinationId, url, 'http_410');
      if (changed !== undefined) this.options.onDisabled(destinationId);
    } catch (err) {
      this.options.logger.error(
        { err: (err as Error).message, destinationId },
        'could not disable a webhook URL that answered 410',
      );
    } finally {
      this.writing.delete(key);
    }
  }

  /** The catalog has the URL on the destination and not disabled (what `disableWebhook` would change). */
  private enabledInCatalog(destinationId: string, url: string): boolean {
    const destination = this.options.catalog.destination(destinationId);
    return destination?.settings.webhooks.some((w) => w.url === url && !w.disabled) ?? false;
  }
}
