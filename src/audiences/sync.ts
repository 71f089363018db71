import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { AudienceCommand } from '../records/audience-state';

const MAX_IDS = 1_000_000;
const userIds = z.array(z.string().min(1).max(1_000)).max(MAX_IDS);

/** `{"members": [...]}` (the whole audience) or `{"add": [...], "remove": [...]}` (a change). */
export const syncBodySchema = z
  .union([
    z.strictObject({ members: userIds }),
    z.strictObject({ add: userIds.optional(), remove: userIds.optional() }),
  ])
  .meta({ id: 'AudienceSync' });

export type SyncBody = z.output<typeof syncBodySchema>;

/** Ids per command record: well under Kafka's default 1 MB record size. */
export const IDS_PER_COMMAND = 5_000;

export interface PartitionedCommand {
  partition: number;
  command: AudienceCommand;
}

/**
 * The commands of one sync request, each on the partition of the users it names (the owner of
 * their events applies them). A full list reaches every partition, so each owner also removes
 * the members it holds that the list leaves out (after the partition's `last` part).
 */
export function syncCommands(options: {
  audience: { id: string; sourceId: string };
  body: SyncBody;
  partitions: number;
  partitionOf: (userId: string) => number;
  syncId?: string;
  idsPerCommand?: number;
}): PartitionedCommand[] {
  const { audience, body, partitions, partitionOf } = options;
  const syncId = options.syncId ?? randomUUID();
  const size = options.idsPerCommand ?? IDS_PER_COMMAND;
  const full = 'members' in body;
  const add = new Set(full ? body.members : (body.add ?? []));
  const remove = new Set(full ? [] : (body.remove ?? []).filter((id) => !add.has(id)));
  const perPartition = new Map<number, { add: string[]; remove: string[] }>();
  const slot = (p: number) => {
    let s = perPartition.get(p);
    if (!s) perPartition.set(p, (s = { add: [], remove: [] }));
    return s;
  };
  if (full) for (let p = 0; p < partitions; p++) slot(p);
  for (const id of add) slot(partitionOf(id)).add.push(id);
  for (const id of remove) slot(partitionOf(id)).remove.push(id);

  const out: PartitionedCommand[] = [];
  for (const [partition, ids] of [...perPartition].sort(([a], [b]) => a - b)) {
    const total = Math.max(1, Math.ceil((ids.add.length + ids.remove.length) / size));
    const all = [
      ...ids.add.map((id) => ['add', id] as const),
      ...ids.remove.map((id) => ['remove', id] as const),
    ];
    for (let i = 0; i < total; i++) {
      const part = all.slice(i * size, (i + 1) * size);
      out.push({
        partition,
        command: {
          audienceId: audience.id,
          sourceId: audience.sourceId,
          syncId,
          add: part.filter(([k]) => k === 'add').map(([, id]) => id),
          remove: part.filter(([k]) => k === 'remove').map(([, id]) => id),
          full,
          last: i === total - 1,
        },
      });
    }
  }
  return out;
}
