import { randomUUID } from 'node:crypto';
import type { CatalogView } from '../records/catalog-model';
import type { Clock } from '../core/clock';
import { KafkaUnavailableError } from '../core/errors';
import { MAX_EVENT_DEPTH, cutBelowDepth } from '../events/depth';
import { isJsonObject, type JsonObject, type JsonValue } from '../events/json';
import type { TrackingEvent, TrackingType } from '../events/types';
import { secondsSinceArrival } from '../http/arrival';
import { HttpError, sendJson } from '../http/respond';
import type { RouteContext, Router } from '../http/router';
import type { Logger } from '../observability/logger';
import type { IngestAdmission } from './admission';
import { authenticateSource, withoutWriteKey, writeKeyFrom } from './auth';
import type { IngestMetrics } from './metrics';
import {
  normalizeEvent,
  type BatchDefaults,
  type NormalizeOptions,
  type PrecomputedFields,
} from '../events/normalize';
import type { RejectedEvent } from '../records/rejected-event';
import type { EventPublisher } from './publisher';
import { batchNesting } from './nesting';
import { readTrackingBody } from './request';

/** Segment's batch limit. */
export const MAX_BATCH_EVENTS = 2_500;

export interface TrackingRoutesOptions {
  router: Router;
  catalog: CatalogView;
  publisher: EventPublisher;
  /** The bounded queue in front of the handlers: beyond it, 503 + Retry-After at once. */
  admission: IngestAdmission;
  metrics: IngestMetrics;
  clock: Clock;
  logger: Logger;
  newMessageId?: () => string;
}

interface RejectedSummary {
  index: number;
  messageId?: string;
  code: string;
  reason: string;
}

/**
 * The Segment-compatible tracking API: `/v1/{identify,track,page,screen,group,alias}` for one
 * call, `/v1/batch` (and `/v1/import`, its older name) for many. A 200 means every accepted
 * event is on Kafka; refused events are listed in the answer and written to the ingest DLQ.
 */
export function registerTrackingRoutes(options: TrackingRoutesOptions): void {
  const single: TrackingType[] = ['identify', 'track', 'page', 'screen', 'group', 'alias'];
  for (const type of single) {
    const route = `/v1/${type}`;
    options.router.add('POST', route, (ctx) => handle(ctx, options, route, type));
  }
  for (const route of ['/v1/batch', '/v1/import']) {
    options.router.add('POST', route, (ctx) => handle(ctx, options, route, undefined));
  }
}

/** Seconds a client is asked to wait after a 503 (Segment clients also back off on their own). */
export const RETRY_AFTER_SECONDS = 1;

/**
 * `route` is the path the route was registered with: the `route` label of the metrics, the path
 * of logs and ingest-DLQ records. Never the request's own path, which the router matches loosely
 * (`/v1//batch`, `/v1/track/`) and anyone, unauthenticated, could vary without end.
 */
async function handle(
  ctx: RouteContext,
  options: TrackingRoutesOptions,
  route: string,
  pathType: TrackingType | undefined,
) {
  const { metrics } = options;
  let status = 500;
  try {
    // The time since arrival (a busy event loop) counts against the queue timeout.
    const admission = await options.admission.enter(secondsSinceArrival(ctx.req) * 1_000);
    if (!admission.admitted) {
      metrics.refused.inc({ reason: admission.reason });
      throw unavailable('the tracking API is at capacity; retry later');
    }
    try {
      status = await accept(ctx, options, route, pathType);
    } finally {
      admission.release();
    }
  } catch (err) {
    if (err instanceof KafkaUnavailableError) {
      status = 503;
      options.logger.warn({ err: err.message, route }, 'tracking request not acknowledged by Kafka');
      throw unavailable('events could not be stored; retry later');
    }
    status = err instanceof HttpError ? err.status : 500;
    throw err;
  } finally {
    metrics.requests.inc({ route, status: String(status) });
    // From arrival, so the wait in the admission queue (and for a busy event loop) counts.
    metrics.requestSeconds.observe({ route }, secondsSinceArrival(ctx.req));
  }
}

function unavailable(message: string): HttpError {
  return new HttpError(503, 'unavailable', message, {}, { 'retry-after': String(RETRY_AFTER_SECONDS) });
}

async function accept(
  ctx: RouteContext,
  options: TrackingRoutesOptions,
  route: string,
  pathType: TrackingType | undefined,
): Promise<number> {
  const { catalog, publisher, metrics, clock } = options;
  const { body, plain, scan } = await readTrackingBody(ctx.req);
  const source = authenticateSource(catalog, writeKeyFrom(ctx.req.headers, body));
  const receivedAtMs = clock.now();

  let items: JsonValue[];
  let defaults: BatchDefaults = {};
  let eventDepth: (index: number) => number | undefined = () => scan?.depth;
  if (pathType) {
    items = [body];
  } else {
    if (!Array.isArray(body.batch))
      throw new HttpError(400, 'invalid_batch', '"batch" must be an array of events');
    if (body.batch.length > MAX_BATCH_EVENTS) {
      throw new HttpError(
        400,
        'batch_too_large',
        `a batch holds at most ${MAX_BATCH_EVENTS} events; got ${body.batch.length}`,
      );
    }
    items = body.batch;
    const nesting = batchNesting(body, items, scan);
    if (nesting.outside > MAX_EVENT_DEPTH) {
      throw new HttpError(
        400,
        'too_deep',
        `the request nests objects and arrays more than ${MAX_EVENT_DEPTH} levels deep outside its events`,
      );
    }
    eventDepth = nesting.eventDepth;
    defaults = {
      context: objectOrUndefined(body.context, 'context'),
      integrations: objectOrUndefined(body.integrations, 'integrations'),
      sentAt: body.sentAt,
    };
  }

  const newMessageId = options.newMessageId ?? randomUUID;
  const accepted: TrackingEvent[] = [];
  const precomputed: PrecomputedFields[] = [];
  const rejected: RejectedEvent[] = [];
  const normalizeOptions: NormalizeOptions = {
    sourceId: source.id,
    receivedAtMs,
    pathType,
    defaults,
    newMessageId,
    plainJson: plain,
  };
  for (let index = 0; index < items.length; index++) {
    const raw = items[index]!;
    normalizeOptions.sourceTexts = pathType ? scan?.root : scan?.batch?.[index];
    normalizeOptions.depth = eventDepth(index);
    const result = normalizeEvent(raw, normalizeOptions);
    if (result.ok) {
      accepted.push(result.event);
      precomputed.push(result.precomputed);
      continue;
    }
    const messageId = isJsonObject(raw) && typeof raw.messageId === 'string' ? raw.messageId : undefined;
    const payload = withoutWriteKey(raw);
    rejected.push({
      sourceId: source.id,
      receivedAtMs,
      path: route,
      index,
      messageId,
      rejection: result.rejection,
      // Cut where it nests too deep, for the record's serialiser (and its readers) to read it.
      payload:
        result.rejection.code === 'too_deep'
          ? (cutBelowDepth(payload, MAX_EVENT_DEPTH) as JsonValue)
          : payload,
    });
  }

  await publisher.publish(accepted, rejected, precomputed);

  countEvents(metrics, accepted, rejected, pathType);
  if (rejected.length > 0) {
    options.logger.info(
      {
        sourceId: source.id,
        route,
        accepted: accepted.length,
        rejected: rejected.length,
        codes: [...new Set(rejected.map((r) => r.rejection.code))],
      },
      'events rejected at ingest',
    );
  }

  const response: { success: true; rejected?: RejectedSummary[] } = { success: true };
  if (rejected.length > 0) {
    response.rejected = rejected.map((r) => ({
      index: r.index,
      ...(r.messageId !== undefined && { messageId: r.messageId }),
      code: r.rejection.code,
      reason: r.rejection.reason,
    }));
  }
  sendJson(ctx.res, 200, response);
  return 200;
}

function objectOrUndefined(value: JsonValue | undefined, key: string): JsonObject | undefined {
  if (value === undefined || value === null) return undefined;
  if (isJsonObject(value)) return value;
  throw new HttpError(400, 'invalid_batch', `batch-level "${key}" must be an object`);
}

/** One counter increment per type and outcome present in the request, not one per event. */
function countEvents(
  metrics: IngestMetrics,
  accepted: TrackingEvent[],
  rejected: RejectedEvent[],
  pathType: TrackingType | undefined,
): void {
  const counts = new Map<string, number>();
  const add = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  for (const e of accepted) add(`${e.type} accepted`);
  for (const r of rejected) add(`${typeOf(r.payload, pathType)} rejected`);
  for (const [key, n] of counts) {
    const [type, outcome] = key.split(' ') as [string, string];
    metrics.events.inc({ type, outcome }, n);
  }
}

/** A bounded label value for metrics. */
function typeOf(raw: JsonValue, pathType: TrackingType | undefined): string {
  if (pathType) return pathType;
  const type = isJsonObject(raw) ? raw.type : undefined;
  return typeof type === 'string' && ['identify', 'track', 'page', 'screen', 'group', 'alias'].includes(type)
    ? type
    : 'unknown';
}
