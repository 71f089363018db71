import type { DlqRecord } from '../../records/dlq';
import { positionKey, type RecordPosition } from '../../kafka/positions';
import {
  matches,
  type DeadLetter,
  type DeadLetterFilter,
  type IndexedDeadLetter,
  type TaskDeadLetter,
} from './dead-letter';
import { PartitionFiles } from './files';
import {
  Dictionary,
  ROW_BYTES,
  ROW_KIND,
  decodeRow,
  idHash,
  rowMatches,
  rowOffset,
  rowTimeMs,
  type DlqRow,
  type RowFilter,
} from './rows';
import { TopK } from './top-k';

export interface DlqStoreOptions {
  /** Where the index files are made (and unlinked at once: see `PartitionFiles`). */
  dir: string;
  /** Dead letters kept decoded in memory (pages, gets): the one part of memory that is a cache. */
  cacheEntries: number;
}

export interface DlqCounts {
  tasks: number;
  pendingTasks: number;
  undecodable: number;
}

/** Where a row is: its partition and row number. */
interface HitPlace {
  partition: number;
  index: number;
}

/** A row a scan found, with what is needed to load and order it. */
interface Hit extends HitPlace {
  row: DlqRow;
}

/** Newest first: by dead-letter time, then by position. */
const newestHit = (a: Hit, b: Hit) =>
  b.row.deadLetteredAtMs - a.row.deadLetteredAtMs || b.partition - a.partition || b.row.offset - a.row.offset;
/** Whether a row (by time, partition, offset) comes before `hit` in `newestHit` order. */
const newerThanHit = (timeMs: number, partition: number, offset: number, hit: Hit) =>
  (timeMs - hit.row.deadLetteredAtMs || partition - hit.partition || offset - hit.row.offset) > 0;
const arrivalHit = (a: Hit, b: Hit) => a.partition - b.partition || a.row.offset - b.row.offset;

/**
 * The dead-letter topic indexed on disk. Memory holds per partition a few counters and the write
 * buffer, the dictionaries of destination ids and reasons, redrive markers read before their dead
 * letter, and a cache of `cacheEntries` decoded dead letters: it does not grow with the number of
 * dead letters. Every query scans the rows (48 bytes a dead letter) in 1 MB chunks and reads the
 * few full records it answers with. A redrive marker names its dead letter by position, so a task
 * dead-lettered again after a redrive is a new, pending dead letter. A record at a position
 * already applied changes nothing.
 */
export class DlqStore {
  private readonly partitions = new Map<number, PartitionFiles>();
  private readonly destinations = new Dictionary();
  /** Reasons are a handful, but an undecodable record's is an error message: at most 4,095 kept. */
  private readonly reasons = new Dictionary(4_096);
  /** Markers for positions not indexed yet (a marker on another partition than its dead letter). */
  private readonly earlyMarkers = new Map<string, number>();
  private readonly cache = new Map<string, DeadLetter>();
  private readonly tally: DlqCounts = { tasks: 0, pendingTasks: 0, undecodable: 0 };

  constructor(private readonly options: DlqStoreOptions) {}

  apply(position: RecordPosition, record: DlqRecord): void {
    if (record.kind === 'redriven') {
      const { deadLetter, redrivenAtMs } = record.marker;
      // On the dead letter's own partition the dead letter came first: if it is not indexed, it
      // never will be (retention removed it), so the marker is not kept waiting for it.
      this.markRedriven(deadLetter, redrivenAtMs, {
        mayComeLater: deadLetter.partition !== position.partition,
      });
      return;
    }
    const files = this.files(position.partition);
    const offset = Number(position.offset);
    if (offset <= files.lastOffset) return;
    const isTask = record.kind === 'task';
    const reason = isTask ? (record.task.deadLetterReason ?? 'unknown') : record.copy.reason;
    files.append(
      {
        offset,
        deadLetteredAtMs: isTask ? (record.task.deadLetteredAtMs ?? 0) : record.copy.deadLetteredAtMs,
        redrivenAtMs: NaN,
        destination: isTask ? this.destinations.code(record.task.destinationId) : 0,
        idHash: idHash(isTask ? record.task.taskId : `undecodable:${positionKey(position)}`),
        reason: this.reasons.code(reason),
        kind: isTask ? ROW_KIND.task : ROW_KIND.undecodable,
      },
      JSON.stringify(isTask ? record.task : record.copy),
    );
    if (isTask) {
      this.tally.tasks++;
      this.tally.pendingTasks++;
    } else this.tally.undecodable++;
    const key = positionKey(position);
    const early = this.earlyMarkers.get(key);
    if (early !== undefined) {
      this.earlyMarkers.delete(key);
      this.markRedriven(position, early);
    }
  }

  /**
   * Keeps the first redrive time of a dead letter. A marker for a dead letter not indexed yet is
   * kept until it is, when it `mayComeLater` (the marker was read on another partition).
   */
  markRedriven(position: RecordPosition, atMs: number, options = { mayComeLater: true }): void {
    const offset = Number(position.offset);
    const files = this.partitions.get(position.partition);
    if (!files || offset > files.lastOffset) {
      if (!options.mayComeLater) return;
      const key = positionKey(position);
      const previous = this.earlyMarkers.get(key);
      if (previous === undefined || atMs < previous) this.earlyMarkers.set(key, atMs);
      return;
    }
    const index = files.findRow(offset);
    if (index < 0) return;
    const row = files.rowAt(index);
    if (!Number.isNaN(row.redrivenAtMs) && row.redrivenAtMs <= atMs) return;
    files.setRedrivenAt(index, atMs);
    if (Number.isNaN(row.redrivenAtMs) && row.kind === ROW_KIND.task) this.tally.pendingTasks--;
  }

  /** A page of matching dead letters, newest first, and how many match. */
  async list(
    filter: DeadLetterFilter,
    limit: number,
  ): Promise<{ deadLetters: IndexedDeadLetter[]; total: number }> {
    const page = new TopK<Hit>(limit, newestHit);
    const total = await this.scan(this.rowFilter(filter), (buf, at, place) => {
      // Most rows are older than a full page's oldest: skip them without decoding.
      const oldest = page.full ? page.last() : undefined;
      if (oldest && !newerThanHit(rowTimeMs(buf, at), place.partition, rowOffset(buf, at), oldest)) return;
      page.offer({ ...place, row: decodeRow(buf, at) });
    });
    // Rows match on codes and hashes; the records themselves decide (a shared overflow code).
    const deadLetters = (await this.load(page.sorted())).filter((e) => matches(e, filter));
    return { deadLetters, total };
  }

  /** Every dead letter with this id, oldest first (a task can be dead-lettered more than once). */
  async find(id: string): Promise<IndexedDeadLetter[]> {
    return (await this.findMany([id])).get(id) ?? [];
  }

  /** `find` of several ids in one scan. */
  async findMany(ids: readonly string[]): Promise<Map<string, IndexedDeadLetter[]>> {
    const found = new Map<string, IndexedDeadLetter[]>();
    const taskIds = new Set<string>();
    for (const id of ids) {
      const undecodable = /^undecodable:(\d+):(\d+)$/.exec(id);
      if (!undecodable) taskIds.add(id);
      else found.set(id, await this.findUndecodable(Number(undecodable[1]), Number(undecodable[2])));
    }
    if (taskIds.size === 0) return found;
    const hits = await this.collect({ kind: ROW_KIND.task, idHashes: new Set([...taskIds].map(idHash)) });
    for (const entry of await this.load(hits.sort(arrivalHit))) {
      if (entry.kind !== 'task' || !taskIds.has(entry.task.taskId)) continue;
      const same = found.get(entry.task.taskId);
      if (same) same.push(entry);
      else found.set(entry.task.taskId, [entry]);
    }
    return found;
  }

  /** Matching task dead letters not redriven yet, in arrival order (per partition). */
  async pendingTasks(filter: DeadLetterFilter = {}): Promise<IndexedDeadLetter<TaskDeadLetter>[]> {
    const hits = await this.collect({ ...this.rowFilter(filter), kind: ROW_KIND.task, pending: true });
    const found = await this.load(hits.sort(arrivalHit));
    return found.filter(
      (e): e is IndexedDeadLetter<TaskDeadLetter> => e.kind === 'task' && matches(e, filter),
    );
  }

  counts(): DlqCounts {
    return { ...this.tally };
  }

  close(): void {
    for (const files of this.partitions.values()) files.close();
    this.partitions.clear();
    this.cache.clear();
  }

  private async findUndecodable(partition: number, offset: number): Promise<IndexedDeadLetter[]> {
    const files = this.partitions.get(partition);
    const index = files?.findRow(offset) ?? -1;
    if (!files || index < 0) return [];
    const row = files.rowAt(index);
    return row.kind === ROW_KIND.undecodable ? this.load([{ partition, index, row }]) : [];
  }

  private files(partition: number): PartitionFiles {
    let files = this.partitions.get(partition);
    if (!files) this.partitions.set(partition, (files = new PartitionFiles(this.options.dir, partition)));
    return files;
  }

  private rowFilter(filter: DeadLetterFilter): RowFilter {
    const byTask = filter.destinationId !== undefined || filter.taskIds !== undefined;
    return {
      kind: byTask ? ROW_KIND.task : undefined,
      destination:
        filter.destinationId === undefined ? undefined : this.destinations.lookup(filter.destinationId),
      reason: filter.reason === undefined ? undefined : this.reasons.lookup(filter.reason),
      sinceMs: filter.sinceMs,
      untilMs: filter.untilMs,
      idHashes: filter.taskIds === undefined ? undefined : new Set([...filter.taskIds].map(idHash)),
    };
  }

  /**
   * Hands every matching row to `take` (the row at byte `at` of `buf`), newest rows of each
   * partition first; answers how many there were.
   */
  private async scan(
    filter: RowFilter,
    take: (buf: Buffer, at: number, hit: HitPlace) => void,
  ): Promise<number> {
    if (filter.destination === -1 || filter.reason === -1) return 0;
    let total = 0;
    for (const [partition, files] of [...this.partitions].sort(([a], [b]) => a - b)) {
      await files.scan((buf, count, first) => {
        for (let i = count - 1; i >= 0; i--) {
          const at = i * ROW_BYTES;
          if (!rowMatches(buf, at, filter)) continue;
          total++;
          take(buf, at, { partition, index: first + i });
        }
      });
    }
    return total;
  }

  /** `scan`, collecting every matching row. */
  private async collect(filter: RowFilter): Promise<Hit[]> {
    const hits: Hit[] = [];
    await this.scan(filter, (buf, at, place) => hits.push({ ...place, row: decodeRow(buf, at) }));
    return hits;
  }

  /** The records of `hits`, in order, at most 64 reads at a time. */
  private async load(hits: Hit[]): Promise<IndexedDeadLetter[]> {
    const loaded: IndexedDeadLetter[] = [];
    for (let i = 0; i < hits.length; i += 64) {
      loaded.push(...(await Promise.all(hits.slice(i, i + 64).map((hit) => this.loadOne(hit)))));
    }
    return loaded;
  }

  private async loadOne({ partition, row }: Hit): Promise<IndexedDeadLetter> {
    const key = `${partition}:${row.offset}`;
    let entry = this.cache.get(key);
    if (entry) this.cache.delete(key);
    else {
      const files = this.partitions.get(partition)!;
      const value = JSON.parse((await files.value(row)).toString()) as unknown;
      const position = { partition, offset: String(row.offset) };
      entry =
        row.kind === ROW_KIND.task
          ? { kind: 'task', position, task: value as TaskDeadLetter['task'] }
          : {
              kind: 'undecodable',
              position,
              copy: value as Extract<DeadLetter, { kind: 'undecodable' }>['copy'],
            };
    }
    this.cache.set(key, entry);
    while (this.cache.size > this.options.cacheEntries) this.cache.delete(this.cache.keys().next().value!);
    return Number.isNaN(row.redrivenAtMs) ? entry : { ...entry, redrivenAtMs: row.redrivenAtMs };
  }
}
