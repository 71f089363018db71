import { CatalogConflictError } from '../../../src/catalog/errors';
import { CatalogService } from '../../../src/catalog/service';
import { CatalogStore } from '../../../src/catalog/store';
import { destinationCreateSchema, destinationPatchSchema } from '../../../src/catalog/validation';
import { catalogHttpError } from '../../../src/catalog';
import { HttpError } from '../../../src/http/respond';
import { silentLogger } from '../../../src/observability/logger';
import { SecretKeyring } from '../../../src/security/secrets';
import { sampleSource } from '../../fixtures/catalog';
import { LoopbackWriter } from './loopback';

const at = (offset: number) => ({ partition: 0, offset: String(offset) });

function setup() {
  const store = new CatalogStore({ logger: silentLogger() });
  store.expect([{ partition: 0, low: '0', high: '0' }]);
  const writer = new LoopbackWriter(store);
  const sealer = new SecretKeyring({ current: Buffer.alloc(32, 3) });
  const service = new CatalogService({ store, writer, sealer, logger: silentLogger() });
  return { store, writer, service };
}

async function withDestination() {
  const context = setup();
  const { source } = await context.service.createSource({ name: 'Web', enabled: true });
  const webhooks = [{ url: 'https://a.example.com/hook' }, { url: 'https://b.example.com/hook' }];
  const destination = await context.service.createDestination(
    destinationCreateSchema.parse({ sourceId: source.id, name: 'Hook', settings: { webhooks } }),
  );
  return { ...context, source, destination };
}

describe('CatalogStore versions', () => {
  it('applies the first record for a version and rejects a later one, naming the current version', () => {
    const store = new CatalogStore({ logger: silentLogger() });
    const source = sampleSource();
    store.apply(at(0), source.id, { kind: 'source', value: source }, { version: 1, repair: false });
    const renamed = { ...source, name: 'first' };
    store.apply(at(1), source.id, { kind: 'source', value: renamed }, { version: 2, repair: false });
    const stale = { ...source, name: 'second' };
    store.apply(at(2), source.id, { kind: 'source', value: stale }, { version: 2, repair: false });
    expect(store.source(source.id)).toMatchObject({ name: 'first', version: 2 });
    expect(store.rejection(at(1))).toBeUndefined();
    // The rejected record is the key's last: its writer must re-append the winner.
    expect(store.rejection(at(2))).toEqual({
      id: source.id,
      currentVersion: 2,
      repair: { entity: { kind: 'source', value: { ...renamed, version: 2 } }, version: 2 },
    });
    store.apply(at(3), source.id, { kind: 'source', value: renamed }, { version: 2, repair: true });
    expect(store.rejection(at(2))).toEqual({ id: source.id, currentVersion: 2 });
    expect(store.versionOf(source.id)).toBe(2);
  });

  it('keeps a deleted entity deleted when a stale update follows the tombstone', () => {
    const store = new CatalogStore({ logger: silentLogger() });
    const source = sampleSource();
    store.apply(at(0), source.id, { kind: 'source', value: source }, { version: 1, repair: false });
    store.apply(at(1), source.id, undefined, { version: 1, repair: false });
    store.apply(at(2), source.id, { kind: 'source', value: source }, { version: 2, repair: false });
    expect(store.source(source.id)).toBeUndefined();
    expect(store.rejection(at(2))).toMatchObject({
      currentVersion: undefined,
      repair: { entity: undefined },
    });
  });

  it('treats a repair tombstone as a deletion when it is all a compacted log kept of the key', () => {
    const store = new CatalogStore({ logger: silentLogger() });
    const source = sampleSource();
    store.apply(at(7), source.id, undefined, { repair: true });
    store.apply(at(8), source.id, { kind: 'source', value: source }, { version: 2, repair: false });
    expect(store.source(source.id)).toBeUndefined();
  });
});

describe('CatalogService optimistic concurrency', () => {
  it('retries a cascade whose destination changed meanwhile, even with If-Match on the source', async () => {
    const { service, writer, store, source, destination } = await withDestination();
    writer.before = () =>
      writer.append(destination.id, { kind: 'destination', value: { ...destination, name: 'x' } }, 2);
    await expect(service.deleteSource(source.id, { cascade: true, ifMatch: 1 })).resolves.toEqual({
      deletedDestinationIds: [destination.id],
    });
    expect(store.destination(destination.id)).toBeUndefined();
    expect(store.source(source.id)).toBeUndefined();
  });

  it('numbers versions from 1 and refuses a stale If-Match with 412 and the current version', async () => {
    const { service, destination } = await withDestination();
    expect(destination.version).toBe(1);
    const renamed = await service.updateDestination(
      destination.id,
      destinationPatchSchema.parse({ name: 'A' }),
      { ifMatch: 1 },
    );
    expect(renamed.version).toBe(2);
    const stale = service.updateDestination(destination.id, destinationPatchSchema.parse({ name: 'B' }), {
      ifMatch: 1,
    });
    await expect(stale).rejects.toMatchObject({ currentVersion: 2, expectedVersion: 1 });
    const err = await stale.catch((e: unknown) => e);
    expect(catalogHttpError(err)).toEqual(
      new HttpError(412, 'precondition_failed', (err as Error).message, { currentVersion: 2 }),
    );
    expect((err as Error).message).toContain('current version is 2');
    await expect(service.deleteDestination(destination.id, { ifMatch: 1 })).rejects.toBeInstanceOf(
      CatalogConflictError,
    );
  });

  it('with If-Match, reports a race lost to another replica instead of overwriting', async () => {
    const { service, writer, store, source } = await withDestination();
    writer.before = () =>
      writer.append(source.id, { kind: 'source', value: { ...source, name: 'elsewhere' } }, 2);
    await expect(service.updateSource(source.id, { name: 'here' }, { ifMatch: 1 })).rejects.toMatchObject({
      currentVersion: 2,
      expectedVersion: 1,
    });
    expect(store.source(source.id)?.name).toBe('elsewhere');
  });

  it('keeps both a 410 disable and an admin change that raced it, whichever lands first', async () => {
    const { service, writer, store, destination } = await withDestination();
    // The admin PATCH (from another replica) lands between the disable's read and its write.
    writer.before = () =>
      writer.append(
        destination.id,
        { kind: 'destination', value: { ...store.destination(destination.id)!, name: 'Renamed' } },
        2,
      );
    await service.disableWebhook(destination.id, 'https://a.example.com/hook', 'http_410');
    expect(store.destination(destination.id)).toMatchObject({ name: 'Renamed', version: 3 });
    expect(store.destination(destination.id)?.settings.webhooks[0]?.disabled?.reason).toBe('http_410');

    // And the other way round: a disable lands while an admin PATCH without If-Match is in flight.
    const current = store.destination(destination.id)!;
    writer.before = () => {
      const webhooks = current.settings.webhooks.map((w, i) =>
        i === 1 ? { ...w, disabled: { at: current.updatedAt, reason: 'http_410' } } : w,
      );
      writer.append(
        destination.id,
        { kind: 'destination', value: { ...current, settings: { ...current.settings, webhooks } } },
        4,
      );
    };
    const patched = await service.updateDestination(
      destination.id,
      destinationPatchSchema.parse({ enabled: false }),
    );
    expect(patched).toMatchObject({ enabled: false, name: 'Renamed', version: 5 });
    expect(patched.settings.webhooks.map((w) => w.disabled?.reason)).toEqual(['http_410', 'http_410']);
  });
});
