/**
 * `npm start`: Hookline for development. Uses the cluster config names (KAFKA_BROKERS,
 * SCHEMA_REGISTRY_URL) when set; otherwise a detached `npm run stack -- up` stack, testcontainers,
 * or a local Kafka + schema registry started here and stopped with Hookline. Without
 * HOOKLINE_SECRETS_KEY it uses a development key kept in ~/.cache/hookline/secrets.key.
 */
import { fail, run } from '../../src/process/main';
import { resolveCluster } from './resolve';
import { localSecretsKey } from './secrets-key';

run({
  env: process.env,
  resolveCluster: (logger) => resolveCluster({ logger, env: process.env }),
  localSecretsKey: (logger) => localSecretsKey({ logger, env: process.env }),
}).catch(fail);
