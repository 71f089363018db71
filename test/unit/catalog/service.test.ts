import { catalogHttpError } from '../../../src/catalog';
import {
  BlockedWebhookUrlError,
  CatalogNotFoundError,
  CatalogNotReadyError,
  SourceHasDestinationsError,
  UnknownSourceError,
} from '../../../src/catalog/errors';
import { CatalogService } from '../../../src/catalog/service';
import { CatalogStore } from '../../../src/catalog/store';
import { destinationCreateSchema, destinationPatchSchema } from '../../../src/catalog/validation';
import { HttpError } from '../../../src/http/respond';
import { silentLogger } from '../../../src/observability/logger';
import { createAddressPolicy, type AddressPolicy } from '../../../src/security/address-policy';
import { SecretKeyring, isSealed, sealedKeyId } from '../../../src/security/secrets';
import { LoopbackWriter } from './loopback';

const KEY = Buffer.alloc(32, 3);
const NEW_KEY = Buffer.alloc(32, 4);
const keyring = new SecretKeyring({ current: KEY });

function setup(sealer: SecretKeyring = keyring, addressPolicy?: AddressPolicy) {
  const store = new CatalogStore({ logger: silentLogger() });
  store.expect([{ partition: 0, low: '0', high: '0' }]);
  const writer = new LoopbackWriter(store);
  let now = Date.parse('2024-05-01T00:00:00.000Z');
  const clock = { now: () => (now += 1_000) };
  const service = new CatalogService({ store, writer, sealer, logger: silentLogger(), clock, addressPolicy });
  return { store, writer, service };
}

const webhooks = [{ url: 'https://example.com/hook' }];
const newDestination = (sourceId: string, settings: object = { webhooks }) =>
  destinationCreateSchema.parse({ sourceId, name: 'Hook', settings });

describe('CatalogService', () => {
  it('creates a source whose write key is returned once and stored only as a hash', async () => {
    const { service, store, writer } = setup();
    const { source, writeKey } = await service.createSource({ name: 'Web', enabled: true });
    expect(source.id).toMatch(/^src_[0-9a-f]{24}$/);
    expect(Buffer.from(writeKey, 'base64url')).toHaveLength(32);
    expect(source.writeKeyPrefix).toBe(writeKey.slice(0, 6));
    expect(store.sourceByWriteKey(writeKey)).toEqual(source);
    expect(JSON.stringify(writer.log)).not.toContain(writeKey);
  });

  it('updates only the fields a patch sets', async () => {
    const { service } = setup();
    const { source } = await service.createSource({ name: 'Web', enabled: true });
    const updated = await service.updateSource(source.id, { enabled: false, name: undefined });
    expect(updated).toMatchObject({ name: 'Web', enabled: false, createdAt: source.createdAt });
    expect(updated.updatedAt > source.updatedAt).toBe(true);
  });

  it('refuses a destination of an unknown source', async () => {
    const { service } = setup();
    await expect(service.createDestination(newDestination('src_missing'))).rejects.toBeInstanceOf(
      UnknownSourceError,
    );
  });

  it('keeps, replaces or removes the shared secret as the patch says', async () => {
    const { service } = setup();
    const { source } = await service.createSource({ name: 'Web', enabled: true });
    const created = await service.createDestination(
      newDestination(source.id, { webhooks, sharedSecret: 'one' }),
    );
    const renamed = await service.updateDestination(
      created.id,
      destinationPatchSchema.parse({ name: 'Renamed' }),
    );
    expect(keyring.open(renamed.settings.sharedSecret!)).toBe('one');
    const replaced = await service.updateDestination(
      created.id,
      destinationPatchSchema.parse({ settings: { sharedSecret: 'two' } }),
    );
    expect(keyring.open(replaced.settings.sharedSecret!)).toBe('two');
    expect(replaced.settings.webhooks).toEqual(created.settings.webhooks);
    const removed = await service.updateDestination(
      created.id,
      destinationPatchSchema.parse({ settings: { sharedSecret: null } }),
    );
    expect('sharedSecret' in removed.settings).toBe(false);
  });

  it('writes the shared secret and every header value sealed, never in plaintext', async () => {
    const { service, store, writer } = setup();
    const { source } = await service.createSource({ name: 'Web', enabled: true });
    const hooks = [{ url: 'https://example.com/hook', headers: { Authorization: 'Bearer tok-123' } }];
    const created = await service.createDestination(
      newDestination(source.id, { webhooks: hooks, sharedSecret: 'sh-456' }),
    );
    const updated = await service.updateDestination(
      created.id,
      destinationPatchSchema.parse({
        settings: { webhooks: [{ url: 'https://example.com/2', headers: { 'X-Key': 'key-789' } }] },
      }),
    );
    const written = JSON.stringify(writer.log);
    for (const plain of ['Bearer tok-123', 'sh-456', 'key-789']) expect(written).not.toContain(plain);
    const stored = store.destination(created.id)!.settings;
    expect(stored).toEqual(updated.settings);
    expect(isSealed(stored.sharedSecret!)).toBe(true);
    expect(keyring.open(stored.webhooks[0]!.headers['X-Key']!)).toBe('key-789');
  });

  it('re-encrypts plaintext (older versions) and previous-key values on reencrypt and on any write', async () => {
    const { service, store, writer } = setup();
    const { source } = await service.createSource({ name: 'Web', enabled: true });
    const settings = { webhooks: [{ url: 'https://example.com/hook', headers: { 'X-Key': 'legacy-key' } }] };
    // As a catalog written before encryption holds it: plaintext values.
    await writer.put({
      kind: 'destination',
      value: {
        id: 'dst_legacy',
        sourceId: source.id,
        name: 'Legacy',
        enabled: true,
        settings: { sharedSecret: 'legacy-secret', ...settings },
        createdAt: '2024-01-01T00:00:00.000Z',
        updatedAt: '2024-01-01T00:00:00.000Z',
      },
    });
    const underOldKey = await service.createDestination(
      newDestination(source.id, { ...settings, sharedSecret: 's' }),
    );

    const rotated = new SecretKeyring({ current: NEW_KEY, previous: KEY });
    const after = new CatalogService({ store, writer, sealer: rotated, logger: silentLogger() });
    await after.updateDestination('dst_legacy', destinationPatchSchema.parse({ name: 'Renamed' }));
    expect(sealedKeyId(store.destination('dst_legacy')!.settings.sharedSecret!)).toBe(rotated.currentKeyId);
    expect(rotated.open(store.destination('dst_legacy')!.settings.webhooks[0]!.headers['X-Key']!)).toBe(
      'legacy-key',
    );

    await expect(after.reencryptDestinations()).resolves.toEqual({
      reencrypted: 1,
      unchanged: 1,
      unreadable: [],
    });
    const moved = store.destination(underOldKey.id)!;
    expect(sealedKeyId(moved.settings.sharedSecret!)).toBe(rotated.currentKeyId);
    expect(moved.updatedAt).toBe(underOldKey.updatedAt);
    expect(new SecretKeyring({ current: NEW_KEY }).open(moved.settings.sharedSecret!)).toBe('s');
    await expect(after.reencryptDestinations()).resolves.toEqual({
      reencrypted: 0,
      unchanged: 2,
      unreadable: [],
    });
  });

  it('reencrypt skips a destination no key opens, names it, and still moves the others', async () => {
    const { service, store, writer } = setup();
    const { source } = await service.createSource({ name: 'Web', enabled: true });
    const lost = new SecretKeyring({ current: Buffer.alloc(32, 9) });
    const written = (id: string, sharedSecret: string) =>
      writer.put({
        kind: 'destination',
        value: {
          id,
          sourceId: source.id,
          name: id,
          enabled: true,
          settings: { sharedSecret, webhooks: [{ url: 'https://example.com/hook', headers: {} }] },
          createdAt: '2024-01-01T00:00:00.000Z',
          updatedAt: '2024-01-01T00:00:00.000Z',
        },
      });
    // Iterated first: before, its error ended the run and the other stayed under the old key.
    const lostSealed = lost.seal('gone');
    await written('dst_a_lost_key', lostSealed);
    await written('dst_b_old_key', keyring.seal('kept'));

    const rotated = new SecretKeyring({ current: NEW_KEY, previous: KEY });
    const after = new CatalogService({ store, writer, sealer: rotated, logger: silentLogger() });
    await expect(after.reencryptDestinations()).resolves.toEqual({
      reencrypted: 1,
      unchanged: 0,
      unreadable: ['dst_a_lost_key'],
    });
    const moved = store.destination('dst_b_old_key')!.settings.sharedSecret!;
    expect(new SecretKeyring({ current: NEW_KEY }).open(moved)).toBe('kept');
    expect(store.destination('dst_a_lost_key')!.settings.sharedSecret).toBe(lostSealed);
  });

  it('keeps the Standard Webhooks rotation when a patch re-sends the secret already set', async () => {
    const { service, store } = setup();
    const { source } = await service.createSource({ name: 'Web', enabled: true });
    const oldSecret = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
    const newSecret = `whsec_${Buffer.alloc(32, 2).toString('base64')}`;
    const created = await service.createDestination(
      newDestination(source.id, { webhooks, standardWebhooksSecret: oldSecret }),
    );
    const rotated = await service.updateDestination(
      created.id,
      destinationPatchSchema.parse({ settings: { standardWebhooksSecret: newSecret } }),
    );
    const rotatedAt = rotated.settings.standardWebhooksPrevious!.rotatedAt;

    // A client sending its whole settings again (same secret) within the overlap.
    await service.updateDestination(
      created.id,
      destinationPatchSchema.parse({
        name: 'Renamed',
        settings: { webhooks, standardWebhooksSecret: newSecret },
      }),
    );
    const stored = store.destination(created.id)!.settings;
    expect(keyring.open(stored.standardWebhooksSecret!)).toBe(newSecret);
    expect(keyring.open(stored.standardWebhooksPrevious!.secret)).toBe(oldSecret);
    expect(stored.standardWebhooksPrevious!.rotatedAt).toBe(rotatedAt);
  });

  it('refuses to delete a source with destinations unless cascading, which deletes them first', async () => {
    const { service, store, writer } = setup();
    const { source } = await service.createSource({ name: 'Web', enabled: true });
    const a = await service.createDestination(newDestination(source.id));
    const b = await service.createDestination(newDestination(source.id));
    await expect(service.deleteSource(source.id, { cascade: false })).rejects.toBeInstanceOf(
      SourceHasDestinationsError,
    );
    expect(store.source(source.id)).toBeDefined();

    await expect(service.deleteSource(source.id, { cascade: true })).resolves.toEqual({
      deletedDestinationIds: [a.id, b.id],
    });
    expect(writer.log.slice(-3)).toEqual([
      { key: a.id, entity: undefined, version: 1 },
      { key: b.id, entity: undefined, version: 1 },
      { key: source.id, entity: undefined, version: 1 },
    ]);
    expect(store.source(source.id)).toBeUndefined();
    expect(store.destinations()).toEqual([]);
  });

  it('answers not found for unknown ids', async () => {
    const { service } = setup();
    await expect(service.updateSource('src_nope', { name: 'x' })).rejects.toBeInstanceOf(
      CatalogNotFoundError,
    );
    await expect(service.deleteDestination('dst_nope')).rejects.toBeInstanceOf(CatalogNotFoundError);
  });

  it('refuses every operation until the catalog has caught up', async () => {
    const store = new CatalogStore({ logger: silentLogger() });
    const service = new CatalogService({
      store,
      writer: new LoopbackWriter(store),
      sealer: keyring,
      logger: silentLogger(),
    });
    await expect(service.createSource({ name: 'Web', enabled: true })).rejects.toBeInstanceOf(
      CatalogNotReadyError,
    );
  });

  it('runs the operations of one process one at a time', async () => {
    const { service, store } = setup();
    const { source } = await service.createSource({ name: 'Web', enabled: true });
    const destination = await service.createDestination(newDestination(source.id));
    // Issued together: the delete's check must see the destination's deletion.
    const results = await Promise.allSettled([
      service.deleteDestination(destination.id),
      service.deleteSource(source.id, { cascade: false }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
    expect(store.sources()).toEqual([]);
  });

  describe('SSRF guard at creation', () => {
    const withUrls = (...urls: string[]) => ({ webhooks: urls.map((url) => ({ url })) });

    it.each([
      ['http://127.0.0.1:8080/', 'loopback'],
      ['http://2130706433/', 'loopback'],
      ['http://0x7f.1/', 'loopback'],
      ['http://0177.0.0.1/', 'loopback'],
      ['http://127.1/', 'loopback'],
      ['http://[::ffff:127.0.0.1]/', 'loopback'],
      ['http://[::1]/', 'loopback'],
      ['http://10.0.0.5/', 'private'],
      ['http://169.254.169.254/latest/meta-data/', 'link_local'],
      ['http://[fd00:ec2::254]/', 'unique_local'],
    ])('refuses %s (%s), writing nothing', async (url, reason) => {
      const { service, writer } = setup();
      const { source } = await service.createSource({ name: 'Web', enabled: true });
      const error = await service
        .createDestination(newDestination(source.id, withUrls('https://example.com/a', url)))
        .catch((err: unknown) => err);
      expect(error).toBeInstanceOf(BlockedWebhookUrlError);
      expect(error).toMatchObject({ urlIndex: 1, reason });
      expect(writer.log).toHaveLength(1); // the source only
    });

    it('accepts host names (checked once resolved, at delivery) and public addresses', async () => {
      const { service } = setup();
      const { source } = await service.createSource({ name: 'Web', enabled: true });
      const urls = [
        'http://localhost:8080/',
        'https://example.com/',
        'http://8.8.8.8/',
        'http://[2606:4700::1]/',
      ];
      await expect(
        service.createDestination(newDestination(source.id, withUrls(...urls))),
      ).resolves.toBeDefined();
    });

    it('accepts addresses in the allowed networks', async () => {
      const { service } = setup(keyring, createAddressPolicy({ allowedNetworks: ['127.0.0.0/8'] }));
      const { source } = await service.createSource({ name: 'Web', enabled: true });
      const created = service.createDestination(newDestination(source.id, withUrls('http://127.0.0.1:9/')));
      await expect(created).resolves.toBeDefined();
      await expect(
        service.createDestination(newDestination(source.id, withUrls('http://10.0.0.1/'))),
      ).rejects.toBeInstanceOf(BlockedWebhookUrlError);
    });

    it('checks a replaced URL list on update, and leaves the destination as it was when refused', async () => {
      const { service, store } = setup();
      const { source } = await service.createSource({ name: 'Web', enabled: true });
      const destination = await service.createDestination(newDestination(source.id));
      const patch = destinationPatchSchema.parse({ settings: withUrls('http://192.168.0.1/') });
      await expect(service.updateDestination(destination.id, patch)).rejects.toMatchObject({
        urlIndex: 0,
        reason: 'private',
      });
      expect(store.destination(destination.id)).toEqual(destination);
      const rename = destinationPatchSchema.parse({ name: 'Renamed' });
      await expect(service.updateDestination(destination.id, rename)).resolves.toMatchObject({
        name: 'Renamed',
      });
    });

    it('answers 400 validation_failed naming the URL field and the kind of address, not the URL', () => {
      const mapped = catalogHttpError(new BlockedWebhookUrlError(2, 'link_local'));
      expect(mapped).toBeInstanceOf(HttpError);
      const http = mapped as HttpError;
      expect(http.status).toBe(400);
      expect(http.code).toBe('validation_failed');
      expect(http.message).toMatch(/^settings\.webhooks\.2\.url: the URL's host is a link-local address/);
      expect(http.extra).toEqual({
        issues: [
          { path: 'settings.webhooks.2.url', code: 'webhook_url_blocked', message: expect.any(String) },
        ],
      });
    });
  });
});
