import { systemClock, type Clock } from '../core/clock';
import type { Logger } from '../observability/logger';
import {
  BlockedWebhookUrlError,
  CatalogNotFoundError,
  CatalogNotReadyError,
  SourceHasDestinationsError,
  UnknownSourceError,
} from './errors';
import { hashWriteKey, newDestinationId, newSourceId, newWriteKey, writeKeyPrefix } from './keys';
import type { Destination, DestinationSettings, Source } from '../records/catalog-model';
import type { CatalogEntity } from '../records/catalog';
import type { CatalogStore } from './store';
import { createAddressPolicy, literalAddress, type AddressPolicy } from '../security/address-policy';
import type { DestinationCreate, DestinationPatch, SourceCreate, SourcePatch } from './validation';

/** The write side the service needs; CatalogWriter in production. */
export interface CatalogWrites {
  put(entity: CatalogEntity): Promise<void>;
  remove(id: string): Promise<void>;
}

export interface CatalogServiceOptions {
  store: CatalogStore;
  writer: CatalogWrites;
  logger: Logger;
  clock?: Clock;
  /**
   * Refuses webhook URLs whose host is a blocked IP address. Default: the strict policy (no
   * allowed networks). Host names are not resolved here: delivery checks what they resolve to.
   */
  addressPolicy?: AddressPolicy;
}

/**
 * The catalog's operations. Each checks the request against the materialised catalog, writes
 * the resulting records, and returns once this process has applied them. Operations of one
 * process run one at a time, so their checks see each other's results; across processes the
 * last write wins.
 */
export class CatalogService {
  private readonly store: CatalogStore;
  private readonly writer: CatalogWrites;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly addressPolicy: AddressPolicy;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(options: CatalogServiceOptions) {
    this.store = options.store;
    this.writer = options.writer;
    this.logger = options.logger.child({ component: 'catalog' });
    this.clock = options.clock ?? systemClock;
    this.addressPolicy = options.addressPolicy ?? createAddressPolicy();
  }

  /** Creates a source with a new write key; the key is returned here and never again. */
  createSource(input: SourceCreate): Promise<{ source: Source; writeKey: string }> {
    return this.serialised(async () => {
      const writeKey = newWriteKey();
      const now = this.now();
      const source: Source = {
        id: newSourceId(),
        name: input.name,
        enabled: input.enabled,
        writeKeyHash: hashWriteKey(writeKey),
        writeKeyPrefix: writeKeyPrefix(writeKey),
        createdAt: now,
        updatedAt: now,
      };
      await this.writer.put({ kind: 'source', value: source });
      this.logger.info({ sourceId: source.id }, 'source created');
      return { source, writeKey };
    });
  }

  updateSource(id: string, patch: SourcePatch): Promise<Source> {
    return this.serialised(async () => {
      const current = this.existingSource(id);
      const source: Source = { ...current, ...definedFields(patch), updatedAt: this.now() };
      await this.writer.put({ kind: 'source', value: source });
      this.logger.info({ sourceId: id }, 'source updated');
      return source;
    });
  }

  /**
   * Deletes a source. With destinations, it fails unless `cascade`, which deletes them first
   * (so an interrupted cascade never leaves destinations without their source).
   */
  deleteSource(id: string, options: { cascade: boolean }): Promise<{ deletedDestinationIds: string[] }> {
    return this.serialised(async () => {
      this.existingSource(id);
      const destinationIds = this.store.destinationsOfSource(id).map((d) => d.id);
      if (destinationIds.length > 0 && !options.cascade)
        throw new SourceHasDestinationsError(id, destinationIds);
      for (const destinationId of destinationIds) await this.writer.remove(destinationId);
      await this.writer.remove(id);
      this.logger.info({ sourceId: id, deletedDestinationIds: destinationIds }, 'source deleted');
      return { deletedDestinationIds: destinationIds };
    });
  }

  createDestination(input: DestinationCreate): Promise<Destination> {
    return this.serialised(async () => {
      if (!this.store.source(input.sourceId)) throw new UnknownSourceError(input.sourceId);
      this.checkAddresses(input.settings.webhooks);
      const now = this.now();
      const destination: Destination = {
        id: newDestinationId(),
        sourceId: input.sourceId,
        name: input.name,
        enabled: input.enabled,
        settings: withRateLimit(
          settingsOf(input.settings.webhooks, input.settings.sharedSecret ?? undefined),
          input.settings.maxRequestsPerSecond ?? undefined,
        ),
        createdAt: now,
        updatedAt: now,
      };
      await this.writer.put({ kind: 'destination', value: destination });
      this.logger.info(
        { destinationId: destination.id, sourceId: destination.sourceId },
        'destination created',
      );
      return destination;
    });
  }

  updateDestination(id: string, patch: DestinationPatch): Promise<Destination> {
    return this.serialised(async () => {
      const current = this.existingDestination(id);
      const { settings: settingsPatch, ...fields } = patch;
      if (settingsPatch?.webhooks) this.checkAddresses(settingsPatch.webhooks);
      const secret =
        settingsPatch?.sharedSecret === undefined
          ? current.settings.sharedSecret
          : (settingsPatch.sharedSecret ?? undefined);
      const destination: Destination = {
        ...current,
        ...definedFields(fields),
        settings: withRateLimit(
          settingsOf(
            settingsPatch?.webhooks ?? current.settings.webhooks,
            secret,
            settingsPatch?.webhooks === undefined,
          ),
          settingsPatch?.maxRequestsPerSecond === undefined
            ? current.settings.maxRequestsPerSecond
            : (settingsPatch.maxRequestsPerSecond ?? undefined),
        ),
        updatedAt: this.now(),
      };
      await this.writer.put({ kind: 'destination', value: destination });
      this.logger.info({ destinationId: id, sourceId: destination.sourceId }, 'destination updated');
      return destination;
    });
  }

  /**
   * Stops deliveries to one URL of a destination (it answered 410 Gone), keeping the others.
   * Idempotent: an already disabled or no longer configured URL is left as it is.
   */
  disableWebhook(id: string, url: string, reason: string): Promise<Destination | undefined> {
    return this.serialised(async () => {
      const current = this.store.destination(id);
      const index = current?.settings.webhooks.findIndex((w) => w.url === url && !w.disabled) ?? -1;
      if (!current || index === -1) return undefined;
      const now = this.now();
      const webhooks = current.settings.webhooks.map((w, i) =>
        i === index ? { ...w, disabled: { at: now, reason } } : w,
      );
      const destination: Destination = {
        ...current,
        settings: { ...current.settings, webhooks },
        updatedAt: now,
      };
      await this.writer.put({ kind: 'destination', value: destination });
      this.logger.warn(
        { destinationId: id, sourceId: current.sourceId, urlIndex: index, reason },
        'webhook URL disabled',
      );
      return destination;
    });
  }

  deleteDestination(id: string): Promise<void> {
    return this.serialised(async () => {
      const current = this.existingDestination(id);
      await this.writer.remove(id);
      this.logger.info({ destinationId: id, sourceId: current.sourceId }, 'destination deleted');
    });
  }

  /** The SSRF guard at the door: a URL naming a blocked IP address is refused when configured. */
  private checkAddresses(webhooks: { url: string }[]): void {
    for (const [urlIndex, { url }] of webhooks.entries()) {
      const address = literalAddress(url);
      const verdict = address === undefined ? undefined : this.addressPolicy.check(address);
      if (verdict && !verdict.allowed) throw new BlockedWebhookUrlError(urlIndex, verdict.reason);
    }
  }

  private existingSource(id: string): Source {
    const source = this.store.source(id);
    if (!source) throw new CatalogNotFoundError('source', id);
    return source;
  }

  private existingDestination(id: string): Destination {
    const destination = this.store.destination(id);
    if (!destination) throw new CatalogNotFoundError('destination', id);
    return destination;
  }

  /** Checks against a half-loaded catalog would be wrong (unknown source, missing entity). */
  private ensureReady(): void {
    if (!this.store.ready) throw new CatalogNotReadyError();
  }

  private now(): string {
    return new Date(this.clock.now()).toISOString();
  }

  /**
   * Runs operations of this process one after another, whatever the outcome of the previous one,
   * and only on a caught-up catalog.
   */
  private serialised<T>(operation: () => Promise<T>): Promise<T> {
    const run = () => {
      this.ensureReady();
      return operation();
    };
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }
}

/** `keepDisabled`: when the list is not replaced, URLs stopped after a 410 stay stopped. */
function settingsOf(
  webhooks: Destination['settings']['webhooks'],
  sharedSecret: string | undefined,
  keepDisabled = false,
): DestinationSettings {
  const copy = webhooks.map((w) => ({
    url: w.url,
    headers: { ...w.headers },
    ...(keepDisabled && w.disabled && { disabled: { ...w.disabled } }),
  }));
  return sharedSecret === undefined ? { webhooks: copy } : { sharedSecret, webhooks: copy };
}

function withRateLimit(settings: DestinationSettings, maxRequestsPerSecond: number | undefined) {
  return maxRequestsPerSecond === undefined ? settings : { ...settings, maxRequestsPerSecond };
}

/** The patch's fields that are set: `{ name: undefined }` must not erase a name. */
function definedFields<T extends object>(patch: T): Partial<T> {
  return Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined)) as Partial<T>;
}
