import type { AvroCodec } from '../avro/codec';
import { UndecodableRecordError } from '../core/errors';

/** The record type of `<prefix>.replays` (schemas/replay-progress.avsc). */
export const REPLAY_PROGRESS_RECORD = 'io.hookline.operations.ReplayProgress';

export type ReplayState = 'running' | 'done' | 'failed' | 'stopped';

/** One replay's progress. Times in epoch ms. */
export interface ReplayProgress {
  id: string;
  destinationId: string;
  sinceMs: number;
  state: ReplayState;
  /** Records between `since` and the high watermarks at start; known once the read has begun. */
  eventsTotal?: number;
  /** Records read so far (routed or skipped). */
  eventsRead: number;
  /** Records that could not be decoded (they are on the dead-letter topic already). */
  eventsSkipped: number;
  tasksWritten: number;
  startedAtMs: number;
  finishedAtMs?: number;
  error?: string;
  /** When the process running it last wrote it. */
  updatedAtMs?: number;
}

interface ReplayRecord {
  id: string;
  destinationId: string;
  since: number;
  state: string;
  eventsTotal: number | null;
  eventsRead: number;
  eventsSkipped: number;
  tasksWritten: number;
  startedAt: number;
  finishedAt: number | null;
  error: string | null;
  updatedAt: number;
}

export function encodeReplayProgress(avro: AvroCodec, p: ReplayProgress, updatedAtMs: number): Buffer {
  return avro.encode(REPLAY_PROGRESS_RECORD, {
    id: p.id,
    destinationId: p.destinationId,
    since: p.sinceMs,
    state: p.state,
    eventsTotal: p.eventsTotal ?? null,
    eventsRead: p.eventsRead,
    eventsSkipped: p.eventsSkipped,
    tasksWritten: p.tasksWritten,
    startedAt: p.startedAtMs,
    finishedAt: p.finishedAtMs ?? null,
    error: p.error ?? null,
    updatedAt: updatedAtMs,
  } satisfies ReplayRecord);
}

export async function decodeReplayProgress(avro: AvroCodec, bytes: Buffer): Promise<ReplayProgress> {
  const { name, value } = await avro.decode(bytes);
  if (name !== REPLAY_PROGRESS_RECORD) throw new UndecodableRecordError(`${name} is not a ReplayProgress`);
  const r = value as unknown as ReplayRecord;
  return {
    id: r.id,
    destinationId: r.destinationId,
    sinceMs: r.since,
    state: r.state as ReplayState,
    ...(r.eventsTotal !== null && { eventsTotal: r.eventsTotal }),
    eventsRead: r.eventsRead,
    eventsSkipped: r.eventsSkipped,
    tasksWritten: r.tasksWritten,
    startedAtMs: r.startedAt,
    ...(r.finishedAt !== null && { finishedAtMs: r.finishedAt }),
    ...(r.error !== null && { error: r.error }),
    updatedAtMs: r.updatedAt,
  };
}
