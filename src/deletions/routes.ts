import { randomUUID } from 'node:crypto';
import type { AdminRoute } from '../http/admin';
import type { CatalogView } from '../records/catalog-model';
import type { Clock } from '../core/clock';
import { parseJson } from '../events/json';
import type { DeleteEvent } from '../events/types';
import { HttpError, readBody, sendJson } from '../http/respond';
import type { Handler } from '../http/router';
import { validated } from '../http/validation';
import type { Logger } from '../observability/logger';
import { DELETION_ROUTE_SPEC, deletionRequestSchema } from './spec';

/** Publishes events onto `hookline.events` (the ingest stage's publisher). */
export interface DeletePublisher {
  publish(events: DeleteEvent[], rejected: []): Promise<void>;
}

export interface DeletionRoutesOptions {
  catalog: Pick<CatalogView, 'source' | 'sources'>;
  publisher: DeletePublisher;
  clock: Clock;
  logger: Logger;
}

/**
 * `POST /api/v1/deletion-requests`: records a deletion request for one user and emits one
 * `delete` notification per affected source onto `hookline.events`, where routing sends it to
 * that source's enabled Webhooks destinations like any event. 202 once they are on Kafka.
 */
export function deletionRoutes(options: DeletionRoutesOptions): AdminRoute[] {
  const { catalog, publisher, clock, logger } = options;
  const handler: Handler = async ({ req, res }) => {
    let body: unknown;
    try {
      body = parseJson((await readBody(req, 64 * 1024)).toString('utf8'));
    } catch (err) {
      if (err instanceof HttpError) throw err;
      throw new HttpError(400, 'invalid_json', 'body is not valid JSON');
    }
    const request = validated(deletionRequestSchema, body);
    const { userId } = request;
    const sourceIds = request.sourceIds ?? catalog.sources().map((s) => s.id);
    const unknown = sourceIds.filter((id) => !catalog.source(id));
    if (unknown.length > 0)
      throw new HttpError(422, 'unknown_source', `unknown source id(s): ${unknown.join(', ')}`);

    const now = new Date(clock.now()).toISOString();
    const requestId = `del_${randomUUID()}`;
    const notifications: DeleteEvent[] = sourceIds.map((sourceId) => ({
      type: 'delete',
      messageId: `${requestId}:${sourceId}`,
      userId,
      timestamp: now,
      receivedAt: now,
      sourceId,
    }));
    await publisher.publish(notifications, []);
    logger.info({ requestId, sources: sourceIds.length }, 'deletion request recorded');
    sendJson(res, 202, {
      id: requestId,
      userId,
      notifications: notifications.map((n) => ({ sourceId: n.sourceId, messageId: n.messageId })),
    });
  };
  return [{ ...DELETION_ROUTE_SPEC, handler }];
}
