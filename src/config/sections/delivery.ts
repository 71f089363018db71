import { z } from 'zod';
import { DEFAULT_RETRY_CUTOFF_MS, DEFAULT_RETRY_SCHEDULE_MS, scheduleProblem } from '../retry';
import { envBool, envDurationMs, envInt, envValues, parseDurationMs } from '../env';

/** The router and the delivery workers: de-duplication, concurrency, circuits and retries. */
export const deliveryEnv = {
  HOOKLINE_DEDUPE_WINDOW: envDurationMs()
    .default(3_600_000)
    .describe(
      'A client retry of the same `messageId` is routed once within this window (per router process).',
    ),
  HOOKLINE_DEDUPE_MAX_ENTRIES: envInt({ min: 0, max: 100_000_000 })
    .default(1_000_000)
    .describe(
      'Bound of the de-duplication memory: about 24 bytes an id, so 24 MB at the default, taken in ' +
        'full when the router starts.',
    ),
  HOOKLINE_ROUTER_CONCURRENCY: envInt({ min: 1, max: 100_000 })
    .default(300)
    .describe(
      'Events one router process handles at once (decoded, their tasks on their way to Kafka). Bounds ' +
        "the router's memory and its share of the event loop while it works through a backlog.",
    ),
  HOOKLINE_DIRECT_DELIVERY: envBool()
    .default(true)
    .describe(
      'In a process that runs both the router and the worker, the router makes first attempts itself, ' +
        'straight from `<prefix>.events` (one Kafka write and one read less per task). `false`: every ' +
        'task goes through `<prefix>.deliveries`, as from a router-only process.',
    ),
  HOOKLINE_DELIVERY_TIMEOUT: envDurationMs()
    .default(5_000)
    .describe('A receiver must answer within this time.'),
  HOOKLINE_WORKER_CONCURRENCY: envInt({ min: 1, max: 100_000 })
    .default(1_000)
    .describe(
      'Delivery tasks in flight per worker process, for first attempts and for retries each. First ' +
        'attempts hold only as many as keep their requests going, at most this.',
    ),
  HOOKLINE_DESTINATION_CONCURRENCY: envInt({ min: 1, max: 10_000 })
    .default(50)
    .describe('Requests in flight to one destination per worker process (also its socket pool).'),
  HOOKLINE_DESTINATION_QUEUE: envInt({ min: 0, max: 1_000_000 })
    .default(500)
    .describe(
      'Tasks waiting for one destination; once it is full, further tasks are deferred to the first ' +
        'delay topic.',
    ),
  HOOKLINE_CIRCUIT_BREAKER: envBool().default(true).describe('Circuit breakers per destination URL.'),
  HOOKLINE_CIRCUIT_MIN_REQUESTS: envInt({ min: 1, max: 1_000_000 })
    .default(10)
    .describe('Requests to a URL within 30 s before its circuit may open.'),
  HOOKLINE_CIRCUIT_FAILURE_PERCENT: envInt({ min: 1, max: 100 })
    .default(50)
    .describe('Share of those requests failed (timeout, connection error, 5xx), in percent, that opens it.'),
  HOOKLINE_CIRCUIT_COOLDOWN: envDurationMs()
    .default(30_000)
    .describe(
      'How long an open circuit skips the URL before probing it; doubles with each failed probe, up to 20×.',
    ),
  HOOKLINE_CIRCUIT_AUTO_DISABLE_AFTER: envDurationMs()
    .optional()
    .meta({
      description:
        'Disables a webhook URL whose circuit has stayed open this long (every probe failing), e.g. ' +
        '`7d`; the URL then shows `disabled` with reason `circuit_open`, as after a `410 Gone`.',
      shownDefault: 'unset: never',
    }),
  HOOKLINE_RETRY_SCHEDULE: envValues(
    z.preprocess(
      (v) => (v === '' ? undefined : v),
      z.string().transform((value, ctx) => {
        const parts = value.split(',').map((p) => parseDurationMs(p.trim()));
        const problem = parts.some((p) => p === undefined)
          ? `expected durations such as 10s,1m,5m; got '${value}'`
          : scheduleProblem(parts as number[]);
        if (problem) {
          ctx.addIssue({ code: 'custom', message: problem });
          return z.NEVER;
        }
        return parts as number[];
      }),
    ),
    { accepts: 'comma-separated durations, strictly increasing', show: 'durations' },
  )
    .default([...DEFAULT_RETRY_SCHEDULE_MS])
    .describe('Delays between attempts; the last repeats until the cutoff. One delay topic per step.'),
  HOOKLINE_RETRY_CUTOFF: envDurationMs()
    .default(DEFAULT_RETRY_CUTOFF_MS)
    .describe(
      'No attempt is scheduled later than this after the first one; the task is dead-lettered instead.',
    ),
};
