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
import type { Destination, Source } from '../records/catalog-model';
import type { CatalogEntity } from '../records/catalog';
import type { CatalogStore } from './store';
import { createAddressPolicy, type AddressPolicy } from '../security/address-policy';
import type { SecretSealer } from '../security/secrets';
import { needsReseal, nextStandardWebhooks, resealSettings, sealHeaders } from './secrets';
import { blockedWebhook, definedFields, settingsOf, withRateLimit } from './settings';
import type { DestinationCreate, DestinationPatch, SourceCreate, SourcePatch } from './validation';

/** The write side the service needs; CatalogWriter in production. */
export interface CatalogWrites {
  put(entity: CatalogEntity): Promise<void>;
  remove(id: string): Promise<void>;
}

export interface CatalogServiceOptions {
  store: CatalogStore;
  writer: CatalogWrites;
  /** Seals secrets and header values before they are written (HOOKLINE_SECRETS_KEY). */
  sealer: SecretSealer;
  logger: Logger;
  clock?: Clock;
  /**
   * Refuses webhook URLs whose host is a blocked IP address. Default: the strict policy (no
   * allowed networks). Host names are not resolved here: delivery checks what they resolve to.
   */
  addressPolicy?: AddressPolicy;
}

/** What `reencryptDestinations` did: destinations rewritten (plaintext or another key), and not. */
export interface ReencryptResult {
  reencrypted: number;
  unchanged: number;
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
  private readonly sealer: SecretSealer;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly addressPolicy: AddressPolicy;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(options: CatalogServiceOptions) {
    this.store = options.store;
    this.writer = options.writer;
    this.sealer = options.sealer;
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
   * Deletes a source, its audiences and computed traits. With destinations, it fails unless `cascade`,
   * which deletes them first (so an interrupted cascade never leaves them without their source).
   */
  deleteSource(id: string, options: { cascade: boolean }): Promise<{ deletedDestinationIds: string[] }> {
    return this.serialised(async () => {
      this.existingSource(id);
      const destinationIds = this.store.destinationsOfSource(id).map((d) => d.id);
      if (destinationIds.length > 0 && !options.cascade)
        throw new SourceHasDestinationsError(id, destinationIds);
      const computationIds = this.store.audiences.idsOfSource(id);
      for (const other of [...destinationIds, ...computationIds, id]) await this.writer.remove(other);
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
          settingsOf({
            webhooks: this.sealWebhooks(input.settings.webhooks),
            sharedSecret: this.sealed(input.settings.sharedSecret),
            standardWebhooks: nextStandardWebhooks(
              {},
              this.sealed(input.settings.standardWebhooksSecret),
              now,
            ),
          }),
          input.settings.maxRequestsPerSecond ?? undefined,
        ),
        createdAt: now,
        updatedAt: now,
      };
      const created = await this.putDestination(destination);
      this.logger.info({ destinationId: created.id, sourceId: created.sourceId }, 'destination created');
      return created;
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
          : this.sealed(settingsPatch.sharedSecret);
      const webhooks = settingsPatch?.webhooks;
      const now = this.now();
      const standardWebhooksChange = settingsPatch?.standardWebhooksSecret;
      const destination: Destination = {
        ...current,
        ...definedFields(fields),
        settings: withRateLimit(
          settingsOf({
            webhooks: webhooks ? this.sealWebhooks(webhooks) : current.settings.webhooks,
            sharedSecret: secret,
            standardWebhooks: nextStandardWebhooks(
              current.settings,
              standardWebhooksChange === null ? null : this.sealed(standardWebhooksChange),
              now,
            ),
            keepDisabled: webhooks === undefined,
          }),
          settingsPatch?.maxRequestsPerSecond === undefined
            ? current.settings.maxRequestsPerSecond
            : (settingsPatch.maxRequestsPerSecond ?? undefined),
        ),
        updatedAt: now,
      };
      const updated = await this.putDestination(destination);
      this.logger.info({ destinationId: id, sourceId: updated.sourceId }, 'destination updated');
      return updated;
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
      const updated = await this.putDestination(destination);
      this.logger.warn(
        { destinationId: id, sourceId: current.sourceId, urlIndex: index, reason },
        'webhook URL disabled',
      );
      return updated;
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
    const blocked = blockedWebhook(webhooks, this.addressPolicy);
    if (blocked) throw new BlockedWebhookUrlError(blocked.urlIndex, blocked.reason);
  }

  /**
   * Rewrites every destination that holds plaintext (written before encryption) or values sealed
   * under HOOKLINE_SECRETS_KEY_PREVIOUS, under the current key. Idempotent; `updatedAt` is kept,
   * since nothing a user set has changed. Run it after rolling out a new key to every process.
   */
  reencryptDestinations(): Promise<ReencryptResult> {
    return this.serialised(async () => {
      let reencrypted = 0;
      let unchanged = 0;
      for (const destination of this.store.destinations()) {
        if (!needsReseal(destination.settings, this.sealer)) {
          unchanged++;
          continue;
        }
        await this.putDestination(destination);
        reencrypted++;
      }
      this.logger.info({ reencrypted, unchanged }, 'destinations re-encrypted under the current key');
      return { reencrypted, unchanged };
    });
  }

  /** Every destination write: its stored secrets are brought under the current key first. */
  private async putDestination(destination: Destination): Promise<Destination> {
    const value = { ...destination, settings: resealSettings(destination.settings, this.sealer) };
    await this.writer.put({ kind: 'destination', value });
    return value;
  }

  private sealed(secret: string | null | undefined): string | undefined {
    return secret === null || secret === undefined ? undefined : this.sealer.seal(secret);
  }

  private sealWebhooks(
    webhooks: { url: string; headers: Record<string, string> }[],
  ): Destination['settings']['webhooks'] {
    return webhooks.map((w) => ({ url: w.url, headers: sealHeaders(w.headers, this.sealer) }));
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
