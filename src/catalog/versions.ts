/**
 * Optimistic concurrency on the catalog topic: compare-and-set decided by every reader, alike.
 *
 * Each record a writer appends carries, in the header `hookline-version`, the version it makes
 * (a put: the version it read + 1, or 1 for a creation) or removes (a tombstone: the version it
 * read). Every materialiser applies the log in the same order and with the same rule
 * (`decideRecord`), so every replica agrees on which record won: the first record for a version
 * wins, a later one made from the same version is rejected, and its writer learns it once its own
 * record has been applied. Records without the header (written before versions existed) are applied
 * unconditionally, as before; their entity reads as version 0.
 *
 * Compaction keeps only the last record of a key, so a rejected record must not stay last: its
 * writer appends a repair (`hookline-repair`), a copy of the current state (the winning entity
 * with its version, or a tombstone) that every reader applies as a no-op.
 */

export const VERSION_HEADER = 'hookline-version';
export const REPAIR_HEADER = 'hookline-repair';

/** What a record says about versions, read from its headers. */
export interface RecordVersion {
  /** Absent: an unconditional (legacy) record. */
  version?: number;
  /** A copy of the current state re-appended after a rejected record. */
  repair: boolean;
}

/** The key's state before the record: its entity's version, or whether a tombstone removed it. */
export interface KeyState {
  /** Undefined when no entity holds the key. */
  version: number | undefined;
  /** A tombstone removed the key (a put for it is a stale update, not a creation). */
  deleted: boolean;
}

/** `apply`: change the state; `noop`: accept without change; `reject`: a stale write, ignored. */
export type RecordDecision = 'apply' | 'noop' | 'reject';

/** The compare-and-set rule every reader applies to each record, in log order. */
export function decideRecord(key: KeyState, record: RecordVersion & { tombstone: boolean }): RecordDecision {
  const { version, repair, tombstone } = record;
  if (repair) {
    const same = tombstone ? key.version === undefined : key.version === version;
    return same ? 'noop' : 'reject';
  }
  if (version === undefined) return 'apply';
  if (tombstone) {
    if (key.version === undefined) return 'noop';
    return key.version === version ? 'apply' : 'reject';
  }
  // A put with no entity under the key: a creation, or the first record a compacted log retained.
  if (key.version === undefined) return key.deleted ? 'reject' : 'apply';
  return version === key.version + 1 ? 'apply' : 'reject';
}

/** The headers a writer puts on a record. */
export function versionHeaders(version: number | undefined, repair = false): Record<string, string> {
  if (version === undefined) return repair ? { [REPAIR_HEADER]: '1' } : {};
  return { [VERSION_HEADER]: String(version), ...(repair && { [REPAIR_HEADER]: '1' }) };
}

type Headers = Record<string, Buffer | string | (Buffer | string)[] | undefined> | undefined;

/** Reads a record's version headers; a malformed version reads as absent (applied unconditionally). */
export function recordVersion(headers: Headers): RecordVersion {
  const text = (name: string) => {
    const value = headers?.[name];
    const first = Array.isArray(value) ? value[0] : value;
    return first === undefined ? undefined : first.toString();
  };
  const raw = text(VERSION_HEADER);
  const version = raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : undefined;
  return { ...(version !== undefined && { version }), repair: text(REPAIR_HEADER) === '1' };
}

/** A strong ETag for a version: `"3"`. */
export function etagOf(version: number): string {
  return `"${version}"`;
}

/** One entity-tag of an If-Match list: `"3"` or `W/"3"` (RFC 9110 §8.8.3); bare `3` is also read. */
const ENTITY_TAG = /^(W\/)?(?:"([^"]*)"|([^"]*))$/;

/**
 * The versions an `If-Match` header names, any of which the entity must be at (RFC 9110
 * §13.1.1): a list of ETags (`"2", "3"`); undefined when absent or `*` (any current version: a
 * missing entity is still 404, as without the header). Comparison is strong: a weak ETag
 * (`W/"3"`) never matches, so a list of weak tags only is an empty list (412). A bare `3` is read
 * as `"3"`. Throws (400) for an empty header, a quote left open, `*` in a list, or a tag that is
 * not a version of this API.
 */
export function parseIfMatch(header: string | undefined): readonly number[] | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (value === '*') return undefined;
  const versions: number[] = [];
  const tags = value.split(',').map((tag) => tag.trim());
  if (tags.every((tag) => tag === '')) throw new RangeError(IF_MATCH_FORMAT);
  for (const tag of tags) {
    if (tag === '') continue; // empty list elements are allowed (RFC 9110 §5.6.1)
    const match = ENTITY_TAG.exec(tag);
    const opaque = match?.[2] ?? match?.[3];
    if (opaque === undefined || !/^\d{1,15}$/.test(opaque)) throw new RangeError(IF_MATCH_FORMAT);
    if (match![1] === undefined) versions.push(Number(opaque));
  }
  return versions;
}

const IF_MATCH_FORMAT = 'If-Match must be * or ETags of this entity, such as "3" or "2", "3"';
