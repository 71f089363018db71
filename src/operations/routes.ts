import { FORWARDED_HEADER } from './attempts/forward';
import type { z } from 'zod';
import type { AdminRoute } from '../http/admin';
import { CatalogNotFoundError } from '../catalog';
import type { CatalogView } from '../records/catalog-model';
import { parseJsonBody as parseBody, validated as validateValue } from '../http/validation';
import { sendJson } from '../http/respond';
import type { Handler, RouteContext } from '../http/router';
import type { AttemptSource } from './attempts/log';
import type { DlqIndex } from './dead-letters/topic-index';
import { DeadLetterNotFoundError, DlqIndexLoadingError } from './errors';
import type { Redriver } from './redrive';
import type { Replays } from './replay';
import { OPERATIONS_ROUTES, type OperationsRouteName } from './specs';
import { attemptQuerySchema, deadLetterQuerySchema, redriveBodySchema, replayBodySchema } from './validation';
import { attemptView, deadLetterDetail, deadLetterView, redriveResultView, replayView } from './views';

/** Redrive bodies list at most 1,000 task ids. */
const MAX_BODY_BYTES = 256 * 1024;

export interface OperationsRoutesOptions {
  dlq: DlqIndex;
  attempts: AttemptSource;
  redriver: Redriver;
  replays: Replays;
  catalog: CatalogView;
}

/**
 * Dead letters, redrive, attempts and replays: the operations part of the admin API, mounted
 * behind the admin token like the catalog endpoints, with the same JSON errors
 * (`toOperationsHttpError` maps this stage's errors).
 */
export function operationsRoutes(options: OperationsRoutesOptions): AdminRoute[] {
  const handlers = operationsHandlers(options);
  return Object.entries(OPERATIONS_ROUTES).map(([name, route]) => ({
    ...route,
    handler: handlers[name as OperationsRouteName],
  }));
}

function operationsHandlers(options: OperationsRoutesOptions): Record<OperationsRouteName, Handler> {
  const { dlq, attempts, redriver, replays, catalog } = options;
  const readyDlq = () => {
    if (!dlq.ready()) throw new DlqIndexLoadingError();
    return dlq.state;
  };
  return {
    listDeadLetters: async ({ url, res }) => {
      const state = readyDlq();
      const query = validated(deadLetterQuerySchema, Object.fromEntries(url.searchParams));
      const { deadLetters, total } = await state.list(
        {
          destinationId: query.destinationId,
          reason: query.reason,
          sinceMs: optionalMs(query.since),
          untilMs: optionalMs(query.until),
        },
        query.limit,
      );
      sendJson(res, 200, { deadLetters: deadLetters.map(deadLetterView), total });
    },
    getDeadLetter: async ({ params, res }) => {
      const state = readyDlq();
      const entries = await state.find(params.taskId!);
      if (entries.length === 0) throw new DeadLetterNotFoundError(params.taskId!);
      sendJson(res, 200, deadLetterDetail(entries));
    },
    redriveDeadLetters: async ({ req, res }) => {
      const body = await parseJsonBody(req, redriveBodySchema);
      const result = await redriver.redrive({
        destinationId: body.destinationId,
        sinceMs: optionalMs(body.since),
        untilMs: optionalMs(body.until),
        taskIds: body.taskIds,
      });
      sendJson(res, 200, redriveResultView(result));
    },
    listAttempts: async ({ params, url, req, res }) => {
      const destinationId = params.id!;
      const query = validated(attemptQuerySchema, Object.fromEntries(url.searchParams));
      // Passed on by another process of a shared index: answered from this one's share only.
      const forwarded = req.headers[FORWARDED_HEADER] !== undefined;
      const found = await attempts.find(destinationId, forwarded ? { ...query, forwarded } : query);
      if (!catalog.destination(destinationId) && !found.known) {
        throw new CatalogNotFoundError('destination', destinationId);
      }
      sendJson(res, 200, { destinationId, attempts: found.attempts.map(attemptView) });
    },
    replayDestination: async (ctx) => {
      const body = await parseJsonBody(ctx.req, replayBodySchema);
      const progress = replays.start(ctx.params.id!, Date.parse(body.since));
      sendJson(ctx.res, 202, replayView(progress), { location: `/api/v1/replays/${progress.id}` });
    },
    getReplay: ({ params, res }) => sendJson(res, 200, replayView(replays.get(params.id!))),
  };
}

function optionalMs(iso: string | undefined): number | undefined {
  return iso === undefined ? undefined : Date.parse(iso);
}

/** Operations bodies may be empty (all fields optional); messages speak of the request. */
function parseJsonBody<S extends z.ZodType>(req: RouteContext['req'], schema: S): Promise<z.output<S>> {
  return parseBody(req, schema, MAX_BODY_BYTES, { emptyBody: {}, subject: 'request' });
}

function validated<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  return validateValue(schema, value, 'request');
}
