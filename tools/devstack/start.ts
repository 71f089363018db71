/**
 * `npm start`: Hookline for development. Uses the cluster config names (KAFKA_BROKERS,
 * SCHEMA_REGISTRY_URL) when set; otherwise a detached `npm run stack -- up` stack, testcontainers,
 * or a local Kafka + schema registry started here and stopped with Hookline. Without
 * HOOKLINE_SECRETS_KEY it uses a development key kept in ~/.cache/hookline/secrets.key. At a
 * terminal its logs are human-readable (pino-pretty, a dev dependency); piped, JSON as in production.
 */
import pino from 'pino';
import { fail, run } from '../../src/process/main';
import { resolveCluster } from './resolve';
import { localSecretsKey } from './secrets-key';

run({
  env: process.env,
  resolveCluster: (logger) => resolveCluster({ logger, env: process.env }),
  localSecretsKey: (logger) => localSecretsKey({ logger, env: process.env }),
  // pino's transport: formatted in a worker thread, off the event loop that delivers webhooks.
  prettyLogs: () =>
    pino.transport({
      target: 'pino-pretty',
      options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' },
    }),
}).catch(fail);
