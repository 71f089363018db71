/**
 * A partition's commit point with holes, and its encoding in the commit's metadata (pure).
 *
 * The committed offset of a partition is one past the last completed record; records below it that
 * are still in flight (a request to a hung destination, say) are its *holes*, listed in the
 * metadata Kafka stores with the committed offset (the technique of confluentinc/parallel-consumer).
 * Whoever takes the partition next handles the holes again and skips every other record below the
 * offset. So a slow record no longer holds back the commits of the work done after it, and a crash
 * re-delivers only what was in flight (plus the last commit delay's worth), never what was done.
 *
 * Encoding: `h1:` then the holes, highest first, as base-36 distances (the first from the
 * committed offset, each next from the hole before it), separated by commas. E.g. offset 100
 * with holes [90, 97] → `h1:3,7`. Null metadata (or any other) means no holes.
 *
 * `r1` (RELEASED_METADATA) also means no holes, and says more: the member that wrote it has nothing
 * of the partition left in flight and commits it no more (it gave the partition up at a rebalance
 * or a graceful stop), so whoever takes the partition over may start at once (handover.ts).
 */
export interface CommitPoint {
  /** The offset to commit: the next record to read. */
  offset: number;
  /** Offsets below it still to handle, in increasing order. */
  holes: number[];
}

const PREFIX = 'h1:';
/** The metadata of a partition's last commit by a member that gave it up with nothing in flight. */
export const RELEASED_METADATA = 'r1';
/**
 * Kafka keeps at most `offset.metadata.max.bytes` (4,096 by default) of metadata per partition.
 * Holes are listed up to this length (about 1,700 of them when they are close together, as the
 * records in flight of a busy partition are); the commit point stays at the first hole that does
 * not fit (as without holes).
 */
export const MAX_METADATA_CHARS = 3_500;
/** The prefix and the first distance (at most 11 base-36 digits: a safe integer) with its comma. */
const FIXED_CHARS = PREFIX.length + 12;

export function encodeHoles(point: CommitPoint): string | null {
  if (point.holes.length === 0) return null;
  const distances: string[] = [];
  let from = point.offset;
  for (let i = point.holes.length - 1; i >= 0; i--) {
    const hole = point.holes[i]!;
    distances.push((from - hole).toString(36));
    from = hole;
  }
  return PREFIX + distances.join(',');
}

/** The holes below `offset` that `metadata` lists; [] for metadata of any other form. */
export function decodeHoles(offset: number, metadata: string | null | undefined): number[] {
  if (!metadata?.startsWith(PREFIX)) return [];
  const holes: number[] = [];
  let from = offset;
  for (const part of metadata.slice(PREFIX.length).split(',')) {
    const distance = /^[0-9a-z]{1,10}$/.test(part) ? parseInt(part, 36) : NaN;
    if (!Number.isSafeInteger(distance) || distance < 1 || from - distance < 0) return [];
    from -= distance;
    holes.push(from);
  }
  return holes.reverse();
}

/**
 * The commit point of a partition's window of fetched records (in offset order, each done or
 * not): one past the last done record such that the records before it that are not done fit in
 * `maxChars` of metadata; undefined when no record is done. Records before the window are all done.
 */
export function commitPointOf(
  window: readonly { offset: number; done: boolean }[],
  maxChars = MAX_METADATA_CHARS,
): CommitPoint | undefined {
  let offset: number | undefined;
  let holesBefore = 0;
  const holes: number[] = [];
  let chars = FIXED_CHARS;
  for (const entry of window) {
    if (entry.done) {
      offset = entry.offset + 1;
      holesBefore = holes.length;
      continue;
    }
    const last = holes[holes.length - 1];
    const more = last === undefined ? 0 : (entry.offset - last).toString(36).length + 1;
    if (chars + more > maxChars) break;
    chars += more;
    holes.push(entry.offset);
  }
  return offset === undefined ? undefined : { offset, holes: holes.slice(0, holesBefore) };
}

/** What to commit for one partition: the offset and its metadata (the holes). */
export interface PartitionCommit {
  offset: number;
  metadata: string | null;
}

/** A commit, or a commit point, as the text that tells whether it was already committed. */
export function commitKey(commit: PartitionCommit | CommitPoint | undefined): string | undefined {
  if (!commit) return undefined;
  const metadata = 'holes' in commit ? encodeHoles(commit) : commit.metadata;
  return `${commit.offset}:${metadata ?? ''}`;
}
