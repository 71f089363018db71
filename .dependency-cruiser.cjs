/**
 * The direction of dependencies in src/ (docs/ARCHITECTURE.md draws it):
 *
 *   root (compose/, admin-api.ts, process/)   builds everything; nothing imports it
 *     → stages (ingest, routing, delivery, operations, deletions, audiences, producer, cli)
 *         → catalog (through its index.ts only)
 *             → kernels (core, config, observability, avro, events, records, kafka, http, security)
 *
 * A stage never imports another stage: the composition root wires them with narrow interfaces.
 * `npm run lint` fails on any violation and on any import cycle.
 */
const STAGES = '(ingest|routing|delivery|operations|deletions|audiences|producer|cli)';
const KERNELS = '(core|config|observability|avro|events|records|kafka|http|security)';
// src/producer is also built, with what it imports, into @hookline/producer (packages/producer).
const producerPackage = require('./packages/producer/package.json');
const PRODUCER_PACKAGES = Object.keys({
  ...producerPackage.dependencies,
  ...producerPackage.optionalDependencies,
})
  .map((name) => name.replace(/[.]/g, '\\.'))
  .join('|');
const ROOT = '^src/(admin-api\\.ts|compose/|process/)';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Import cycles hide which module is built on which.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'kernel-not-to-stage',
      severity: 'error',
      comment: 'Kernels are shared by every stage and know none of them (nor the catalog, nor the root).',
      from: { path: `^src/${KERNELS}/` },
      to: { path: [`^src/${STAGES}/`, '^src/catalog/', ROOT] },
    },
    {
      name: 'catalog-not-to-stage',
      severity: 'error',
      comment: 'The catalog is read by every stage; it depends on kernels only.',
      from: { path: '^src/catalog/' },
      to: { path: [`^src/${STAGES}/`, ROOT] },
    },
    {
      name: 'stage-not-to-other-stage',
      severity: 'error',
      comment: 'Stages meet only in the composition root, through interfaces the using stage defines.',
      from: { path: `^src/${STAGES}/` },
      to: { path: `^src/${STAGES}/`, pathNot: '^src/$1/' },
    },
    {
      name: 'catalog-through-its-index',
      severity: 'error',
      comment:
        'Stages use the catalog through src/catalog/index.ts, its public surface, or reader.ts, its read side alone.',
      from: { path: `^src/${STAGES}/` },
      to: { path: '^src/catalog/', pathNot: '^src/catalog/(index|reader)\\.ts$' },
    },
    {
      name: 'producer-library-stays-small',
      severity: 'error',
      comment:
        'What src/producer reaches ships in @hookline/producer to every service that installs it: only the packages packages/producer/package.json declares (not lmdb, prom-client, undici...).',
      from: { path: '^src/producer/' },
      to: {
        reachable: true,
        path: '(^|/)node_modules/',
        pathNot: `(^|/)node_modules/(${PRODUCER_PACKAGES})/`,
      },
    },
    {
      name: 'nothing-imports-the-root',
      severity: 'error',
      comment:
        'The composition root is the top: only process/main.ts (and tests, the bench, tools) start it.',
      from: { path: '^src/', pathNot: ROOT },
      to: { path: ROOT },
    },
    {
      name: 'product-not-to-dev-tooling',
      severity: 'error',
      comment: 'The product (src/, what the image ships) never loads the local stack, tests or the bench.',
      from: { path: '^src/' },
      to: { path: '^(tools|test|bench)/' },
    },
    {
      name: 'kafkajs-through-its-module',
      severity: 'error',
      comment:
        'kafkajs values come from src/kafka/kafkajs.ts, the one module between Hookline and its Kafka client (docs/adr/0001-kafka-client.md). Types may come from kafkajs.',
      from: { path: '^(src|tools/devstack)/', pathNot: '^src/kafka/kafkajs\\.ts$' },
      // Also where node_modules is a symlink (a worktree): depcruise then reports the real path.
      to: { path: '(^|/)node_modules/kafkajs/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'fork-preload-only-in-process-entries',
      severity: 'error',
      comment:
        "The preload of the kafkajs fork changes kafkajs process-wide: only the process entry (src/process/main.ts) imports it, first; never the producer library, which leaves its host application's kafkajs alone.",
      from: { path: '^src/', pathNot: '^src/process/main\\.ts$' },
      to: { path: '^src/kafka/kafkajs-fork/preload\\.ts$' },
    },
    {
      name: 'fork-through-its-index',
      severity: 'error',
      comment:
        'Outside src/kafka, the kafkajs fork is used through src/kafka/kafkajs-fork/index.ts (and its preload).',
      from: { path: '^src/', pathNot: '^src/kafka/' },
      to: { path: '^src/kafka/kafkajs-fork/', pathNot: '^src/kafka/kafkajs-fork/(index|preload)\\.ts$' },
    },
    {
      name: 'product-not-to-dev-dependencies',
      severity: 'error',
      comment: 'The image installs production dependencies only.',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^dist(-bench)?/' },
  },
};
