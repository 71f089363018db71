import { z } from 'zod';
import { audiencesEnv } from './sections/audiences';
import { deliveryEnv } from './sections/delivery';
import { httpEnv } from './sections/http';
import { kafkaEnv } from './sections/kafka';
import { operationsEnv } from './sections/operations';
import { securityEnv } from './sections/security';

export { ROLES, type Role } from './sections/http';

/**
 * The sections of Hookline's configuration, in the order the configuration reference
 * (docs/reference/configuration.md, `npm run docs:gen`) lists them. Each key carries its
 * description (zod `.describe()`/`.meta()`) and what it accepts (EnvValues, see ./env).
 */
export const ENV_SECTIONS = [
  { title: 'HTTP and processes', keys: httpEnv },
  { title: 'Security', keys: securityEnv },
  { title: 'Kafka and the schema registry', keys: kafkaEnv },
  { title: 'Routing and delivery', keys: deliveryEnv },
  { title: 'Audiences', keys: audiencesEnv },
  { title: 'Attempt index and dead letters', keys: operationsEnv },
] as const;

/** Hookline's whole configuration, read from environment variables. */
export const envSchema = z.object({
  ...httpEnv,
  ...securityEnv,
  ...kafkaEnv,
  ...deliveryEnv,
  ...audiencesEnv,
  ...operationsEnv,
});
