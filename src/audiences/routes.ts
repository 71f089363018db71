import type { ServerResponse } from 'node:http';
import type { z } from 'zod';
import {
  CatalogNotFoundError,
  type Audience,
  type AudienceCatalogReads,
  type AudienceCatalogService,
  type ComputedTrait,
} from '../catalog';
import { ADMIN_BASE_PATH, type AdminRoute } from '../http/admin';
import { sendJson } from '../http/respond';
import type { RouteContext } from '../http/router';
import { parseJsonBody } from '../http/validation';
import {
  audienceCreateSchema,
  audienceListSchema,
  audienceViewSchema,
  computedTraitCreateSchema,
  computedTraitListSchema,
  computedTraitViewSchema,
} from './api-schemas';
import { snakeCase } from './snake-case';
import type { ComputationStatusReader } from './status-index';
import { syncRoute, type SyncPublisher } from './sync-route';

/** A rule is at most a few kB; a body this large is a mistake. */
const MAX_BODY_BYTES = 256 * 1024;

export interface AudienceRoutesOptions {
  service: AudienceCatalogService;
  catalog: AudienceCatalogReads;
  /** Progress of each computation (the processors' status topic); absent: always computing. */
  status?: ComputationStatusReader;
  /** Publishes synced-audience membership; absent: no /sync route. */
  sync?: SyncPublisher;
}

export type AudienceView = z.output<typeof audienceViewSchema>;

const NO_STATUS: ComputationStatusReader = { statusOf: () => ({ state: 'computing', members: 0 }) };

export function audienceView(audience: Audience, status = NO_STATUS): AudienceView {
  const { rule, ...rest } = audience;
  const progress = status.statusOf(audience.id);
  return rule === undefined
    ? { ...rest, kind: 'synced', ...progress }
    : { ...rest, kind: 'rule', rule, ...progress };
}

function traitView(trait: ComputedTrait, status = NO_STATUS) {
  return { ...trait, ...status.statusOf(trait.id) };
}

/**
 * The audiences' part of the admin API: `/api/v1/audiences` and `/api/v1/computed-traits`.
 * Definitions are catalog records (written through the catalog's AudienceCatalogService);
 * catalog errors are mapped by the catalog's `toHttpError`.
 */
export function audienceRoutes({ service, catalog, status, sync }: AudienceRoutesOptions): AdminRoute[] {
  const audiences = `${ADMIN_BASE_PATH}/audiences`;
  const traits = `${ADMIN_BASE_PATH}/computed-traits`;
  const audience = (ctx: RouteContext) => found('audience', ctx, catalog.audience(ctx.params.id!));
  const trait = (ctx: RouteContext) => found('computed_trait', ctx, catalog.computedTrait(ctx.params.id!));
  const sourceQuery = [
    { name: 'sourceId', description: 'Only those of this source.', schema: { type: 'string' } },
  ];

  return [
    {
      method: 'POST',
      path: audiences,
      spec: {
        operationId: 'createAudience',
        summary:
          'Create an audience: with a rule, computed from the source’s events; without, synced through ' +
          '/sync. Its members get an identify with {<key>: true}, then only changes.',
        body: audienceCreateSchema,
        responses: {
          201: { description: 'Created.', schema: audienceViewSchema },
          409: { description: 'The source already has an audience or computed trait with this key.' },
          422: { description: 'The sourceId names no source (error = unknown_source).' },
        },
      },
      handler: async ({ req, res }) => {
        const input = await parseJsonBody(req, audienceCreateSchema, MAX_BODY_BYTES);
        const created = await service.createAudience({ ...input, key: snakeCase(input.name) });
        sendJson(res, 201, audienceView(created, status), { location: `${audiences}/${created.id}` });
      },
    },
    {
      method: 'GET',
      path: audiences,
      spec: {
        operationId: 'listAudiences',
        summary: 'List audiences in creation order, optionally those of one source.',
        query: sourceQuery,
        responses: { 200: { description: 'The audiences.', schema: audienceListSchema } },
      },
      handler: ({ url, res }) => {
        const list = catalog.audiences(url.searchParams.get('sourceId') ?? undefined);
        sendJson(res, 200, { audiences: list.map((a) => audienceView(a, status)) });
      },
    },
    {
      method: 'GET',
      path: `${audiences}/{id}`,
      spec: {
        operationId: 'getAudience',
        summary: 'Get an audience.',
        responses: { 200: { description: 'The audience.', schema: audienceViewSchema } },
      },
      handler: (ctx) => sendJson(ctx.res, 200, audienceView(audience(ctx), status)),
    },
    {
      method: 'DELETE',
      path: `${audiences}/{id}`,
      spec: {
        operationId: 'deleteAudience',
        summary: 'Delete an audience; no more identify calls are sent for it.',
        responses: { 204: { description: 'Deleted.' } },
      },
      handler: async (ctx) => {
        await service.delete('audience', audience(ctx).id);
        noContent(ctx.res);
      },
    },
    ...(sync
      ? [syncRoute({ path: `${audiences}/{id}/sync`, audience, sync, status: status ?? NO_STATUS })]
      : []),
    {
      method: 'POST',
      path: traits,
      spec: {
        operationId: 'createComputedTrait',
        summary:
          'Create a computed trait: every user with a value gets an identify with {<key>: value}, then ' +
          'one whenever their value changes.',
        body: computedTraitCreateSchema,
        responses: {
          201: { description: 'Created.', schema: computedTraitViewSchema },
          409: { description: 'The source already has an audience or computed trait with this key.' },
          422: { description: 'The sourceId names no source (error = unknown_source).' },
        },
      },
      handler: async ({ req, res }) => {
        const input = await parseJsonBody(req, computedTraitCreateSchema, MAX_BODY_BYTES);
        const created = await service.createComputedTrait({ ...input, key: snakeCase(input.name) });
        sendJson(res, 201, traitView(created, status), { location: `${traits}/${created.id}` });
      },
    },
    {
      method: 'GET',
      path: traits,
      spec: {
        operationId: 'listComputedTraits',
        summary: 'List computed traits in creation order, optionally those of one source.',
        query: sourceQuery,
        responses: { 200: { description: 'The computed traits.', schema: computedTraitListSchema } },
      },
      handler: ({ url, res }) =>
        sendJson(res, 200, {
          computedTraits: catalog
            .computedTraits(url.searchParams.get('sourceId') ?? undefined)
            .map((t) => traitView(t, status)),
        }),
    },
    {
      method: 'GET',
      path: `${traits}/{id}`,
      spec: {
        operationId: 'getComputedTrait',
        summary: 'Get a computed trait.',
        responses: { 200: { description: 'The computed trait.', schema: computedTraitViewSchema } },
      },
      handler: (ctx) => sendJson(ctx.res, 200, traitView(trait(ctx), status)),
    },
    {
      method: 'DELETE',
      path: `${traits}/{id}`,
      spec: {
        operationId: 'deleteComputedTrait',
        summary: 'Delete a computed trait; no more identify calls are sent for it.',
        responses: { 204: { description: 'Deleted.' } },
      },
      handler: async (ctx) => {
        await service.delete('computed_trait', trait(ctx).id);
        noContent(ctx.res);
      },
    },
  ];
}

function found<T extends Audience | ComputedTrait>(
  kind: 'audience' | 'computed_trait',
  ctx: RouteContext,
  entity: T | undefined,
): T {
  if (!entity) throw new CatalogNotFoundError(kind, ctx.params.id!);
  return entity;
}

function noContent(res: ServerResponse): void {
  res.writeHead(204);
  res.end();
}
