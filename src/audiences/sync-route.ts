import type { Audience } from '../catalog';
import type { AdminRoute } from '../http/admin';
import { HttpError, sendJson } from '../http/respond';
import type { RouteContext } from '../http/router';
import { parseJsonBody } from '../http/validation';
import { syncAcceptedSchema } from './api-schemas';
import type { ComputationStatusReader } from './status-index';
import { syncBodySchema, syncCommands, type PartitionedCommand } from './sync';

/** A full list of a million ids of up to ~40 bytes. */
const MAX_SYNC_BODY_BYTES = 64 * 1024 * 1024;

/** Writes a sync's commands to hookline.audience-commands (acks=all). */
export interface SyncPublisher {
  /** Partitions of hookline.events (and of the commands topic). */
  partitions: number;
  partitionOf(userId: string): number;
  publish(commands: PartitionedCommand[]): Promise<void>;
}

/**
 * `POST /api/v1/audiences/{id}/sync`: a synced audience's members, in full or as a change.
 *
 * Refused (409 `audience_computing`) until the audience is live on every partition (`status`):
 * a processor whose catalog does not know the audience yet cannot apply its commands, and drops
 * them (their offsets committed, partition.ts), so a sync sent right after the audience's
 * creation could be lost after its 202. Once the processors have announced the audience live,
 * they know it. Refusing is simpler than holding commands in the processor, which would have to
 * keep their offsets uncommitted (and every later command's) until its catalog caught up.
 */
export function syncRoute(options: {
  path: string;
  audience: (ctx: RouteContext) => Audience;
  sync: SyncPublisher;
  /** The processors' progress (hookline.audience-status). */
  status: ComputationStatusReader;
}): AdminRoute {
  const { sync } = options;
  return {
    method: 'POST',
    path: options.path,
    spec: {
      operationId: 'syncAudience',
      summary:
        'Set a synced audience’s members: {"members": [...]} is the whole audience (users left out ' +
        'leave it), {"add": [...], "remove": [...]} a change. Only users whose membership changes get ' +
        'an identify; applied asynchronously by the audience processor.',
      body: syncBodySchema,
      responses: {
        202: { description: 'Accepted: on Kafka, to be applied.', schema: syncAcceptedSchema },
        409: {
          description:
            'The audience has a rule (error = audience_not_synced), or is not live yet: retry once ' +
            'GET shows state "live" (error = audience_computing).',
        },
      },
    },
    handler: async (ctx) => {
      const audience = options.audience(ctx);
      if (audience.rule !== undefined)
        throw new HttpError(
          409,
          'audience_not_synced',
          'this audience is computed from its rule; only one without a rule is synced',
        );
      if (options.status.statusOf(audience.id).state !== 'live')
        throw new HttpError(
          409,
          'audience_computing',
          'the audience is not live on every partition yet; retry once GET shows state "live"',
        );
      const body = await parseJsonBody(ctx.req, syncBodySchema, MAX_SYNC_BODY_BYTES);
      const commands = syncCommands({
        audience,
        body,
        partitions: sync.partitions,
        partitionOf: (id) => sync.partitionOf(id),
      });
      await sync.publish(commands);
      const count = (k: 'add' | 'remove') => commands.reduce((n, c) => n + c.command[k].length, 0);
      sendJson(ctx.res, 202, {
        syncId: commands[0]?.command.syncId ?? '',
        add: count('add'),
        remove: count('remove'),
        full: 'members' in body,
      });
    },
  };
}
