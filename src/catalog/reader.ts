/**
 * The catalog's read side, for a process that only follows the catalog topic (the producer
 * library): the store, its materialiser and the catalog's errors. Stages import the catalog
 * through index.ts, or through this file when they need no more than this. It loads neither the
 * writer, the service nor the admin API, so a follower pulls in neither zod's request schemas nor
 * prom-client (the store's metrics are registered by index.ts, `store-metrics.ts`).
 */
export { CatalogStore, type CatalogChange, type CatalogListener } from './store';
export { startMaterialiser, type Materialiser } from './materialiser';
export * from './errors';
