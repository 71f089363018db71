import { Counter, Gauge, type Registry } from 'prom-client';
import type { CatalogStore } from './store';

/**
 * Registers the store's `hookline_catalog_*` metrics on the registry; each is read from the store
 * when scraped. Kept out of store.ts so that a process that only follows the catalog (the producer
 * library, `reader.ts`) does not load prom-client.
 */
export function registerCatalogStoreMetrics(
  store: Pick<CatalogStore, 'counts' | 'ready'>,
  registry: Registry,
): void {
  new Gauge({
    name: 'hookline_catalog_entities',
    help: 'Entities in the materialised catalog.',
    labelNames: ['kind'],
    registers: [registry],
    collect() {
      const { sources, destinations } = store.counts;
      this.set({ kind: 'source' }, sources);
      this.set({ kind: 'destination' }, destinations);
    },
  });
  new Gauge({
    name: 'hookline_catalog_ready',
    help: '1 once the catalog topic has been read up to where it stood at start.',
    registers: [registry],
    collect() {
      this.set(store.ready ? 1 : 0);
    },
  });
  let reportedSkipped = 0;
  new Counter({
    name: 'hookline_catalog_records_skipped_total',
    help: 'Catalog records that could not be decoded and were skipped.',
    registers: [registry],
    collect() {
      const { skippedRecords } = store.counts;
      this.inc(skippedRecords - reportedSkipped);
      reportedSkipped = skippedRecords;
    },
  });
}
