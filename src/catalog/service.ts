import { systemClock, type Clock } from '../core/clock';
import type { Logger } from '../observability/logger';
import { BlockedWebhookUrlError, SourceHasDestinationsError, UnknownSourceError } from './errors';
import { hashWriteKey, newDestinationId, newSourceId, newWriteKey, writeKeyPrefix } from './keys';
import type { Destination, Source } from '../records/catalog-model';
import type { CatalogEntity } from '../records/catalog';
import type { CatalogStore } from './store';
import { createAddressPolicy, type AddressPolicy } from '../security/address-policy';
import type { SecretOpener, SecretSealer } from '../security/secrets';
import {
  nextStandardWebhooks,
  resealSettings,
  sameDestination,
  sealWebhooks,
  sealedSecret,
  standardWebhooksSecretChange,
} from './secrets';
import { reencryptDestinations, type ReencryptResult } from './reencrypt';
import { blockedWebhook, definedFields, settingsOf, withRateLimit } from './settings';
import { OperationQueue, expectVersion, found, nextVersion, type WriteCondition } from './operations';
import type { DestinationCreate, DestinationPatch, SourceCreate, SourcePatch } from './validation';

/**
 * The write side the service needs; CatalogWriter in production. With `version` a write is a
 * compare-and-set (versions.ts) and rejects with CatalogConflictError when it loses.
 */
export interface CatalogWrites {
  put(entity: CatalogEntity, version?: number): Promise<void>;
  remove(id: string, version?: number): Promise<void>;
}

export interface CatalogServiceOptions {
  store: CatalogStore;
  writer: CatalogWrites;
  /**
   * Seals secrets and header values before they are written (HOOKLINE_SECRETS_KEY), and opens
   * stored ones to tell whether a PATCH changes them.
   */
  sealer: SecretSealer & SecretOpener;
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
 * process run one at a time, so their checks see each other's results. Across processes every
 * change is a compare-and-set on the entity's version: with If-Match a lost race is a
 * CatalogConflictError (412); without, the operation re-reads the entity and applies itself again.
 */
export class CatalogService {
  private readonly store: CatalogStore;
  private readonly writer: CatalogWrites;
  private readonly sealer: SecretSealer & SecretOpener;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly addressPolicy: AddressPolicy;
  private readonly operations: OperationQueue;

  constructor(options: CatalogServiceOptions) {
    this.store = options.store;
    this.writer = options.writer;
    this.sealer = options.sealer;
    this.logger = options.logger.child({ component: 'catalog' });
    this.clock = options.clock ?? systemClock;
    this.addressPolicy = options.addressPolicy ?? createAddressPolicy();
    this.operations = new OperationQueue({ ready: () => this.store.ready, logger: this.logger });
  }

  /** Creates a source with a new write key; the key is returned here and never again. */
  createSource(input: SourceCreate): Promise<{ source: Source; writeKey: string }> {
    return this.operations.serialised(async () => {
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
        version: 1,
      };
      await this.writer.put({ kind: 'source', value: source }, 1);
      this.logger.info({ sourceId: source.id }, 'source created');
      return { source, writeKey };
    });
  }

  updateSource(id: string, patch: SourcePatch, condition: WriteCondition = {}): Promise<Source> {
    return this.operations.versioned(id, condition, async () => {
      const current = expectVersion(found('source', id, this.store.source(id)), condition);
      const changes = definedFields(patch);
      // As for destinations: a PATCH that changes nothing writes nothing.
      if (Object.entries(changes).every(([field, value]) => current[field as keyof Source] === value)) {
        return current;
      }
      const version = nextVersion(current);
      const source: Source = { ...current, ...changes, updatedAt: this.now(), version };
      await this.writer.put({ kind: 'source', value: source }, version);
      this.logger.info({ sourceId: id, version }, 'source updated');
      return source;
    });
  }

  /**
   * Deletes a source, its audiences and computed traits. With destinations, it fails unless `cascade`,
   * which deletes them first (so an interrupted cascade never leaves them without their source).
   */
  deleteSource(
    id: string,
    options: { cascade: boolean } & WriteCondition,
  ): Promise<{ deletedDestinationIds: string[] }> {
    return this.operations.versioned(id, options, async () => {
      const source = expectVersion(found('source', id, this.store.source(id)), options);
      const destinations = this.store.destinationsOfSource(id);
      const destinationIds = destinations.map((d) => d.id);
      if (destinationIds.length > 0 && !options.cascade)
        throw new SourceHasDestinationsError(id, destinationIds);
      for (const d of destinations) await this.writer.remove(d.id, d.version ?? 0);
      for (const computationId of this.store.audiences.idsOfSource(id))
        await this.writer.remove(computationId);
      await this.writer.remove(id, source.version ?? 0);
      this.logger.info({ sourceId: id, deletedDestinationIds: destinationIds }, 'source deleted');
      return { deletedDestinationIds: destinationIds };
    });
  }

  createDestination(input: DestinationCreate): Promise<Destination> {
    return this.operations.serialised(async () => {
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
            webhooks: sealWebhooks(input.settings.webhooks, this.sealer),
            sharedSecret: sealedSecret(input.settings.sharedSecret, this.sealer),
            standardWebhooks: nextStandardWebhooks(
              {},
              sealedSecret(input.settings.standardWebhooksSecret, this.sealer),
              now,
            ),
          }),
          input.settings.maxRequestsPerSecond ?? undefined,
        ),
        createdAt: now,
        updatedAt: now,
        version: 1,
      };
      const created = await this.putDestination(destination);
      this.logger.info({ destinationId: created.id, sourceId: created.sourceId }, 'destination created');
      return created;
    });
  }

  updateDestination(
    id: string,
    patch: DestinationPatch,
    condition: WriteCondition = {},
  ): Promise<Destination> {
    return this.operations.versioned(id, condition, async () => {
      const current = expectVersion(found('destination', id, this.store.destination(id)), condition);
      const { settings: settingsPatch, ...fields } = patch;
      if (settingsPatch?.webhooks) this.checkAddresses(settingsPatch.webhooks);
      const secret =
        settingsPatch?.sharedSecret === undefined
          ? current.settings.sharedSecret
          : sealedSecret(settingsPatch.sharedSecret, this.sealer);
      const webhooks = settingsPatch?.webhooks;
      const now = this.now();
      const standardWebhooksChange = standardWebhooksSecretChange(
        current.settings.standardWebhooksSecret,
        settingsPatch?.standardWebhooksSecret,
        this.sealer,
      );
      const destination: Destination = {
        ...current,
        ...definedFields(fields),
        settings: withRateLimit(
          settingsOf({
            webhooks: webhooks ? sealWebhooks(webhooks, this.sealer) : current.settings.webhooks,
            sharedSecret: secret,
            standardWebhooks: nextStandardWebhooks(current.settings, standardWebhooksChange, now),
            keepDisabled: webhooks === undefined,
          }),
          settingsPatch?.maxRequestsPerSecond === undefined
            ? current.settings.maxRequestsPerSecond
            : (settingsPatch.maxRequestsPerSecond ?? undefined),
        ),
        updatedAt: now,
        version: nextVersion(current),
      };
      // A PATCH that changes nothing writes nothing: no new version, no rotation, no ETag change.
      if (sameDestination(current, destination, this.sealer)) return current;
      const updated = await this.putDestination(destination);
      this.logger.info({ destinationId: id, sourceId: updated.sourceId }, 'destination updated');
      return updated;
    });
  }

  /**
   * Stops deliveries to one URL of a destination (it answered 410 Gone), keeping the others.
   * Idempotent: an already disabled or no longer configured URL is left as it is. Racing another
   * change, it re-reads the destination and disables the URL in what won, so both changes stay.
   */
  disableWebhook(id: string, url: string, reason: string): Promise<Destination | undefined> {
    return this.operations.versioned(id, {}, async () => {
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
        version: nextVersion(current),
      };
      const updated = await this.putDestination(destination);
      this.logger.warn(
        { destinationId: id, sourceId: current.sourceId, urlIndex: index, reason },
        'webhook URL disabled',
      );
      return updated;
    });
  }

  deleteDestination(id: string, condition: WriteCondition = {}): Promise<void> {
    return this.operations.versioned(id, condition, async () => {
      const current = expectVersion(found('destination', id, this.store.destination(id)), condition);
      await this.writer.remove(id, current.version ?? 0);
      this.logger.info({ destinationId: id, sourceId: current.sourceId }, 'destination deleted');
    });
  }

  /** The SSRF guard at the door: a URL naming a blocked IP address is refused when configured. */
  private checkAddresses(webhooks: { url: string }[]): void {
    const blocked = blockedWebhook(webhooks, this.addressPolicy);
    if (blocked) throw new BlockedWebhookUrlError(blocked.urlIndex, blocked.reason);
  }

  /**
   * Rewrites every destination holding plaintext or values sealed under the previous key under the
   * current key (reencrypt.ts); one at a time with the catalog's other operations.
   */
  reencryptDestinations(): Promise<ReencryptResult> {
    return this.operations.serialised(() =>
      reencryptDestinations({
        destinations: this.store.destinations(),
        sealer: this.sealer,
        put: (destination) => this.putDestination(destination),
        logger: this.logger,
      }),
    );
  }

  /** Every destination write: its stored secrets are brought under the current key first. */
  private async putDestination(destination: Destination): Promise<Destination> {
    const value = { ...destination, settings: resealSettings(destination.settings, this.sealer) };
    await this.writer.put({ kind: 'destination', value }, destination.version);
    return value;
  }

  private now(): string {
    return new Date(this.clock.now()).toISOString();
  }
}
