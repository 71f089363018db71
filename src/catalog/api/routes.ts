import type { ServerResponse } from 'node:http';
import type { z } from 'zod';
import { CatalogNotFoundError } from '../errors';
import type { CatalogService } from '../service';
import type { CatalogStore } from '../store';
import {
  destinationCreateSchema,
  destinationPatchSchema,
  sourceCreateSchema,
  sourcePatchSchema,
} from '../validation';
import { parseJsonBody } from '../../http/validation';
import { ADMIN_BASE_PATH, type AdminRoute } from '../../http/admin';
import { HttpError, sendJson } from '../../http/respond';
import type { RouteContext } from '../../http/router';
import {
  destinationListSchema,
  destinationView,
  destinationViewSchema,
  reencryptResultSchema,
  sourceCreatedSchema,
  sourceListSchema,
  sourceView,
  sourceViewSchema,
  type CircuitReader,
} from './views';
import { ETAG_HEADER, IF_MATCH_HEADER, PRECONDITION_FAILED, etag, writeCondition } from './preconditions';

/** Admin bodies are small: a destination with 5 URLs and 20 headers each fits easily. */
const MAX_BODY_BYTES = 256 * 1024;

export interface CatalogRoutesOptions {
  service: CatalogService;
  store: CatalogStore;
  /** Shown per URL in a destination read, when this process delivers. */
  circuits?: CircuitReader;
}

/**
 * The catalog's part of the admin API (`/api/v1/sources`, `/api/v1/destinations`): each route
 * with its OpenAPI description and its handler (catalog errors still thrown; `toHttpError` maps
 * them). Mount them once the catalog has caught up (startCatalog resolves then): reads come
 * straight from the store.
 */
export function catalogRoutes({ service, store, circuits }: CatalogRoutesOptions): AdminRoute[] {
  const sources = `${ADMIN_BASE_PATH}/sources`;
  const destinations = `${ADMIN_BASE_PATH}/destinations`;
  const source = (ctx: RouteContext) => {
    const found = store.source(ctx.params.id!);
    if (!found) throw new CatalogNotFoundError('source', ctx.params.id!);
    return found;
  };
  const destination = (ctx: RouteContext) => {
    const found = store.destination(ctx.params.id!);
    if (!found) throw new CatalogNotFoundError('destination', ctx.params.id!);
    return found;
  };

  return [
    {
      method: 'POST',
      path: sources,
      spec: {
        operationId: 'createSource',
        summary: 'Create a source; the answer carries its write key, shown only this once.',
        body: sourceCreateSchema,
        responses: { 201: { description: 'Created.', schema: sourceCreatedSchema, headers: ETAG_HEADER } },
      },
      handler: async ({ req, res }) => {
        const { source: created, writeKey } = await service.createSource(
          await parseBody(req, sourceCreateSchema),
        );
        sendJson(
          res,
          201,
          { ...sourceView(created), writeKey },
          { location: `${sources}/${created.id}`, ...etag(created) },
        );
      },
    },
    {
      method: 'GET',
      path: sources,
      spec: {
        operationId: 'listSources',
        summary: 'List sources, in creation order.',
        responses: { 200: { description: 'Every source.', schema: sourceListSchema } },
      },
      handler: ({ res }) => sendJson(res, 200, { sources: store.sources().map(sourceView) }),
    },
    {
      method: 'GET',
      path: `${sources}/{id}`,
      spec: {
        operationId: 'getSource',
        summary: 'Get a source (without its write key).',
        responses: { 200: { description: 'The source.', schema: sourceViewSchema, headers: ETAG_HEADER } },
      },
      handler: (ctx) => {
        const found = source(ctx);
        sendJson(ctx.res, 200, sourceView(found), etag(found));
      },
    },
    {
      method: 'PATCH',
      path: `${sources}/{id}`,
      spec: {
        operationId: 'updateSource',
        summary: 'Change a source’s name or enabled flag.',
        body: sourcePatchSchema,
        headers: [IF_MATCH_HEADER],
        responses: {
          200: { description: 'The updated source.', schema: sourceViewSchema, headers: ETAG_HEADER },
          ...PRECONDITION_FAILED,
        },
      },
      handler: async (ctx) => {
        const condition = writeCondition(ctx);
        const patch = await parseBody(ctx.req, sourcePatchSchema);
        const updated = await service.updateSource(ctx.params.id!, patch, condition);
        sendJson(ctx.res, 200, sourceView(updated), etag(updated));
      },
    },
    {
      method: 'DELETE',
      path: `${sources}/{id}`,
      spec: {
        operationId: 'deleteSource',
        summary: 'Delete a source. 409 while it has destinations, unless cascade=true deletes them too.',
        query: [
          {
            name: 'cascade',
            description: 'Also delete the source’s destinations.',
            schema: { type: 'boolean' },
          },
        ],
        headers: [IF_MATCH_HEADER],
        responses: {
          204: { description: 'Deleted.' },
          409: { description: 'The source still has destinations.' },
          ...PRECONDITION_FAILED,
        },
      },
      handler: async (ctx) => {
        const cascade = booleanQuery(ctx, 'cascade');
        await service.deleteSource(ctx.params.id!, { cascade, ...writeCondition(ctx) });
        noContent(ctx.res);
      },
    },
    {
      method: 'POST',
      path: destinations,
      spec: {
        operationId: 'createDestination',
        summary: 'Create a Webhooks destination of a source.',
        body: destinationCreateSchema,
        responses: {
          201: { description: 'Created.', schema: destinationViewSchema, headers: ETAG_HEADER },
          422: { description: 'The sourceId names no source (error = unknown_source).' },
        },
      },
      handler: async ({ req, res }) => {
        const created = await service.createDestination(await parseBody(req, destinationCreateSchema));
        sendJson(res, 201, destinationView(created, circuits), {
          location: `${destinations}/${created.id}`,
          ...etag(created),
        });
      },
    },
    {
      method: 'GET',
      path: destinations,
      spec: {
        operationId: 'listDestinations',
        summary: 'List destinations in creation order, optionally those of one source.',
        query: [
          { name: 'sourceId', description: 'Only this source’s destinations.', schema: { type: 'string' } },
        ],
        responses: { 200: { description: 'The destinations.', schema: destinationListSchema } },
      },
      handler: ({ url, res }) => {
        const sourceId = url.searchParams.get('sourceId');
        const list = sourceId === null ? store.destinations() : store.destinationsOfSource(sourceId);
        sendJson(res, 200, { destinations: list.map((d) => destinationView(d, circuits)) });
      },
    },
    {
      method: 'GET',
      path: `${destinations}/{id}`,
      spec: {
        operationId: 'getDestination',
        summary: 'Get a destination (the shared secret shows only as sharedSecretSet).',
        responses: {
          200: { description: 'The destination.', schema: destinationViewSchema, headers: ETAG_HEADER },
        },
      },
      handler: (ctx) => {
        const found = destination(ctx);
        sendJson(ctx.res, 200, destinationView(found, circuits), etag(found));
      },
    },
    {
      method: 'PATCH',
      path: `${destinations}/{id}`,
      spec: {
        operationId: 'updateDestination',
        summary:
          'Change a destination. settings.webhooks replaces the list; settings.sharedSecret null removes it.',
        body: destinationPatchSchema,
        headers: [IF_MATCH_HEADER],
        responses: {
          200: {
            description: 'The updated destination.',
            schema: destinationViewSchema,
            headers: ETAG_HEADER,
          },
          ...PRECONDITION_FAILED,
        },
      },
      handler: async (ctx) => {
        const condition = writeCondition(ctx);
        const patch = await parseBody(ctx.req, destinationPatchSchema);
        const updated = await service.updateDestination(ctx.params.id!, patch, condition);
        sendJson(ctx.res, 200, destinationView(updated, circuits), etag(updated));
      },
    },
    {
      method: 'DELETE',
      path: `${destinations}/{id}`,
      spec: {
        operationId: 'deleteDestination',
        summary: 'Delete a destination.',
        headers: [IF_MATCH_HEADER],
        responses: { 204: { description: 'Deleted.' }, ...PRECONDITION_FAILED },
      },
      handler: async (ctx) => {
        await service.deleteDestination(ctx.params.id!, writeCondition(ctx));
        noContent(ctx.res);
      },
    },
    {
      method: 'POST',
      path: `${ADMIN_BASE_PATH}/secrets/reencrypt`,
      spec: {
        operationId: 'reencryptSecrets',
        summary:
          'Rewrite every destination whose secrets or header values are plaintext or sealed with HOOKLINE_SECRETS_KEY_PREVIOUS, under HOOKLINE_SECRETS_KEY. Idempotent.',
        responses: { 200: { description: 'What was rewritten.', schema: reencryptResultSchema } },
      },
      handler: async ({ res }) => sendJson(res, 200, await service.reencryptDestinations()),
    },
  ];
}

/** Reads a JSON body and validates it; 400 `invalid_json` or `validation_failed` with the issues. */
function parseBody<S extends z.ZodType>(req: RouteContext['req'], schema: S): Promise<z.output<S>> {
  return parseJsonBody(req, schema, MAX_BODY_BYTES);
}

function booleanQuery(ctx: RouteContext, name: string): boolean {
  const value = ctx.url.searchParams.get(name);
  if (value === null || value === 'false') return false;
  if (value === 'true' || value === '') return true;
  throw new HttpError(400, 'validation_failed', `query parameter ${name} must be true or false`, {
    issues: [{ path: name, code: 'invalid_type', message: 'must be true or false' }],
  });
}

function noContent(res: ServerResponse): void {
  res.writeHead(204);
  res.end();
}
