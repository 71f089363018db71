/**
 * `npm start`: Hookline for development. Uses the cluster config names (KAFKA_BROKERS,
 * SCHEMA_REGISTRY_URL) when set; otherwise a detached `npm run stack -- up` stack, testcontainers,
 * or a local Kafka + schema registry started here and stopped with Hookline.
 */
import { fail, run } from '../../src/main';
import { resolveCluster } from './resolve';

run({
  env: process.env,
  resolveCluster: (logger) => resolveCluster({ logger, env: process.env }),
}).catch(fail);
