/**
 * Two projects:
 *  - unit: pure logic, no Kafka, runs in parallel.
 *  - integration: real Kafka + schema registry. The global setup finds or starts a cluster
 *    (KAFKA_BROKERS/SCHEMA_REGISTRY_URL, a running `npm run stack -- up`, testcontainers, or local
 *    processes) and exports its addresses to the workers.
 */
const transform = { '^.+\\.tsx?$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json' }] };

module.exports = {
  projects: [
    {
      displayName: 'unit',
      testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
      transform,
      testEnvironment: 'node',
    },
    {
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      transform,
      testEnvironment: 'node',
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
      slowTestThreshold: 30,
    },
  ],
  testTimeout: 60_000,
};
