/**
 * Records of the audience processor's topics, as versioned JSON (they are read only by Hookline's
 * audience processor and admin API; JSON keeps a user's state readable with Kafka tools):
 *
 *  - `hookline.audience-state` (compacted, transactional): key `sourceId:user` → one user's state;
 *    key `partition:<n>` → which computations are live on that partition; no value = deleted;
 *  - `hookline.audience-commands`: synced-audience membership changes for one partition;
 *  - `hookline.audience-status` (compacted, transactional): key `computationId:partition` →
 *    whether it is live there and how many members (users with a value) it has.
 */
import { UndecodableRecordError } from '../core/errors';

/** One user's state; its shape belongs to the audiences stage (audiences/user-state.ts). */
export interface StoredUserState {
  sourceId: string;
  userId?: string;
  anonymousId?: string;
}

export type AudienceStateRecord =
  { kind: 'user'; state: StoredUserState } | { kind: 'partition'; partition: number; live: string[] };

export const partitionStateKey = (partition: number): string => `partition:${partition}`;

/** Synced membership: `add` become members, `remove` stop being; `full`: the list is the whole audience. */
export interface AudienceCommand {
  audienceId: string;
  sourceId: string;
  /** One id per sync request. */
  syncId: string;
  add: string[];
  remove: string[];
  /** Part of a full list: users of this partition not listed by this sync leave after the `last` part. */
  full: boolean;
  last: boolean;
}

export interface AudienceStatus {
  computationId: string;
  partition: number;
  live: boolean;
  /** Audience: members; computed trait: users with a value. */
  members: number;
}

const VERSION = 1;

export function encodeJsonRecord(record: AudienceStateRecord | AudienceCommand | AudienceStatus): Buffer {
  return Buffer.from(JSON.stringify({ v: VERSION, ...record }));
}

function decodeJson(bytes: Buffer, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw new UndecodableRecordError(`${what} is not JSON: ${(err as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || (value as { v?: unknown }).v !== VERSION)
    throw new UndecodableRecordError(`${what} is not a version ${VERSION} record`);
  const rest = { ...(value as Record<string, unknown>) };
  delete rest.v;
  return rest;
}

export function decodeStateRecord(bytes: Buffer): AudienceStateRecord {
  const record = decodeJson(bytes, 'audience state record');
  if (record.kind === 'user' && record.state && typeof record.state === 'object')
    return record as unknown as AudienceStateRecord;
  if (record.kind === 'partition' && Array.isArray(record.live))
    return record as unknown as AudienceStateRecord;
  throw new UndecodableRecordError('audience state record of unknown kind');
}

export function decodeCommand(bytes: Buffer): AudienceCommand {
  const record = decodeJson(bytes, 'audience command');
  if (typeof record.audienceId !== 'string' || !Array.isArray(record.add) || !Array.isArray(record.remove))
    throw new UndecodableRecordError('audience command without audienceId, add or remove');
  return record as unknown as AudienceCommand;
}

export function decodeStatus(bytes: Buffer): AudienceStatus {
  const record = decodeJson(bytes, 'audience status');
  if (typeof record.computationId !== 'string' || typeof record.partition !== 'number')
    throw new UndecodableRecordError('audience status without computationId or partition');
  return record as unknown as AudienceStatus;
}

export const statusKey = (status: Pick<AudienceStatus, 'computationId' | 'partition'>): string =>
  `${status.computationId}:${status.partition}`;
