import { Registry } from 'prom-client';
import { CatalogStore } from '../../../src/catalog/store';
import { registerCatalogStoreMetrics } from '../../../src/catalog/store-metrics';
import { silentLogger } from '../../../src/observability/logger';
import { sampleDestination, sampleSource } from '../../fixtures/catalog';

const at = (offset: number) => ({ partition: 0, offset: String(offset) });

async function valueOf(registry: Registry, name: string, labels: Record<string, string> = {}) {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  const sample = metric?.values.find((v) =>
    Object.entries(labels).every(([k, want]) => v.labels[k] === want),
  );
  return sample?.value;
}

describe('registerCatalogStoreMetrics', () => {
  it('reports entities, readiness and skipped records as the store holds them at each scrape', async () => {
    const store = new CatalogStore({ logger: silentLogger() });
    const registry = new Registry();
    registerCatalogStoreMetrics(store, registry);
    store.expect([{ partition: 0, low: '0', high: '4' }]);
    expect(await valueOf(registry, 'hookline_catalog_ready')).toBe(0);

    const source = sampleSource();
    store.apply(at(0), source.id, { kind: 'source', value: source });
    const destination = sampleDestination();
    store.apply(at(1), destination.id, { kind: 'destination', value: destination });
    store.skip(at(2));
    expect(await valueOf(registry, 'hookline_catalog_entities', { kind: 'source' })).toBe(1);
    expect(await valueOf(registry, 'hookline_catalog_entities', { kind: 'destination' })).toBe(1);
    expect(await valueOf(registry, 'hookline_catalog_records_skipped_total')).toBe(1);

    // A counter: each scrape adds only what was skipped since the last one.
    store.skip(at(3));
    expect(await valueOf(registry, 'hookline_catalog_records_skipped_total')).toBe(2);
    expect(await valueOf(registry, 'hookline_catalog_records_skipped_total')).toBe(2);
    expect(await valueOf(registry, 'hookline_catalog_ready')).toBe(1);
  });
});
