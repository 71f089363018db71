import { AudienceCatalogService } from '../../../src/catalog/audience-service';
import { CatalogService } from '../../../src/catalog/service';
import { CatalogStore } from '../../../src/catalog/store';
import { silentLogger } from '../../../src/observability/logger';
import { SecretKeyring } from '../../../src/security/secrets';
import { LoopbackWriter } from './loopback';

function setup() {
  const store = new CatalogStore({ logger: silentLogger() });
  store.expect([{ partition: 0, low: '0', high: '0' }]);
  const writer = new LoopbackWriter(store);
  const sealer = new SecretKeyring({ current: Buffer.alloc(32, 3) });
  const service = new CatalogService({ store, writer, sealer, logger: silentLogger() });
  return { store, writer, service };
}

describe('deleting a source', () => {
  it('deletes a source’s audiences and computed traits with it, before the source', async () => {
    const { service, store, writer } = setup();
    const { source } = await service.createSource({ name: 'Web', enabled: true });
    const { source: other } = await service.createSource({ name: 'Other', enabled: true });
    const audiences = new AudienceCatalogService({ store, writer, logger: silentLogger() });
    const audience = await audiences.createAudience({ sourceId: source.id, name: 'VIP', key: 'vip' });
    const trait = await audiences.createComputedTrait({
      sourceId: source.id,
      name: 'Orders',
      key: 'orders',
      compute: { count: { event: 'Order Completed' } },
    });
    const kept = await audiences.createAudience({ sourceId: other.id, name: 'VIP', key: 'vip' });
    await service.deleteSource(source.id, { cascade: false });
    expect(writer.log.slice(-3).map((w) => [w.key, w.entity])).toEqual([
      [audience.id, undefined],
      [trait.id, undefined],
      [source.id, undefined],
    ]);
    expect(store.audiences.audiences()).toEqual([kept]);
    expect(store.audiences.computedTraits()).toEqual([]);
  });
});
