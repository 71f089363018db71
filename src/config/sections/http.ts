import { z } from 'zod';
import { envDurationMs, envEnum, envInt, envString, envValues } from '../env';

export const ROLES = ['ingest', 'router', 'worker', 'audiences'] as const;
export type Role = (typeof ROLES)[number];

const blankToUndefined = (v: unknown) => (v === '' || v === undefined ? undefined : v);

/** The HTTP servers, the processes and the tracking API's admission queue. */
export const httpEnv = {
  HOOKLINE_HTTP_PORT: envInt({ min: 0, max: 65_535 })
    .default(8080)
    .describe(
      'Port of the HTTP server: tracking API, admin API (unless `HOOKLINE_ADMIN_PORT` is set), ' +
        '`/livez`, `/readyz`, `/metrics`.',
    ),
  HOOKLINE_HTTP_HOST: envString().default('0.0.0.0').describe('Interface the HTTP server binds.'),
  HOOKLINE_ADMIN_PORT: envInt({ min: 0, max: 65_535 })
    .optional()
    .meta({
      description:
        'A separate port for the admin API (`/api/v1/*`); when set, the main port no longer serves it. ' +
        'The Helm chart sets it (8081).',
      shownDefault: 'unset: the admin API is on `HOOKLINE_HTTP_PORT`',
    }),
  HOOKLINE_ADMIN_HOST: envString()
    .optional()
    .meta({
      description:
        'Interface the admin port binds (only with `HOOKLINE_ADMIN_PORT`), e.g. `127.0.0.1` to keep ' +
        'the admin API local.',
      shownDefault: '`HOOKLINE_HTTP_HOST`',
    }),
  HOOKLINE_WORKERS: envValues(
    z.preprocess(
      blankToUndefined,
      z.union([
        z.literal('auto'),
        z
          .string()
          .regex(/^\d+$/, "expected 'auto' or a number of processes")
          .transform(Number)
          .pipe(z.number().int().min(1).max(256)),
      ]),
    ),
    { accepts: '`auto`, or an integer from 1 to 256' },
  )
    .default('auto')
    .describe(
      'Processes to run: `auto` = one per CPU (`os.availableParallelism()`), or a number. With more ' +
        'than one, a primary forks that many children (node:cluster) that share the HTTP port and the ' +
        "consumer groups' partitions; it restarts a child that crashes and drains them all on SIGTERM. " +
        'The Helm chart runs one per pod and scales with replicas.',
    ),
  HOOKLINE_ROLES: envValues(
    z.preprocess(
      blankToUndefined,
      z.string().transform((value, ctx) => {
        const roles = value
          .split(',')
          .map((r) => r.trim())
          .filter(Boolean);
        const bad = roles.find((r) => !(ROLES as readonly string[]).includes(r));
        if (roles.length === 0 || bad !== undefined) {
          ctx.addIssue({
            code: 'custom',
            message: `expected a comma-separated subset of ${ROLES.join(',')}`,
          });
          return z.NEVER;
        }
        return [...new Set(roles)] as Role[];
      }),
    ),
    { accepts: `comma-separated subset of ${ROLES.map((r) => `\`${r}\``).join(', ')}`, show: 'list' },
  )
    .default([...ROLES])
    .describe('The roles this process runs: all of them by default.'),
  HOOKLINE_INGEST_CONCURRENCY: envInt({ min: 1, max: 100_000 })
    .default(16)
    .describe(
      'Tracking API requests handled at once per process (body read, normalised, waiting for Kafka). ' +
        'More wait in the admission queue (`HOOKLINE_INGEST_QUEUE`).',
    ),
  HOOKLINE_INGEST_QUEUE: envInt({ min: 0, max: 1_000_000 })
    .default(1_000)
    .describe(
      'Tracking API requests that may wait for a slot; one more is answered `503` with ' +
        '`Retry-After: 1` at once.',
    ),
  HOOKLINE_INGEST_QUEUE_TIMEOUT: envDurationMs()
    .default(250)
    .describe(
      "Longest wait for a slot, counted from the request's arrival (so a busy event loop's delay " +
        'counts); a request still waiting then is answered `503` with `Retry-After: 1`.',
    ),
  HOOKLINE_LOG_LEVEL: envEnum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe('Level of the JSON logs (pino). `debug` adds a line per successful delivery attempt.'),
};
