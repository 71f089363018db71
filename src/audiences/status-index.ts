import type { Admin, Kafka } from 'kafkajs';
import { startIndexer } from '../kafka/indexer';
import type { Follower } from '../kafka/follower';
import type { Logger } from '../observability/logger';
import { decodeStatus, type AudienceStatus } from '../records/audience-state';

export interface ComputationStatus {
  /** `live` once every partition announced its first members; `computing` before. */
  state: 'computing' | 'live';
  /** Audience: members; computed trait: users with a value (over the live partitions). */
  members: number;
}

/** What the admin API shows of a computation's progress. */
export interface ComputationStatusReader {
  statusOf(computationId: string): ComputationStatus;
}

/** The status of each computation on each partition, as the processors last committed it. */
export class StatusBoard implements ComputationStatusReader {
  private readonly byComputation = new Map<string, Map<number, AudienceStatus>>();

  /** `partitions`: of hookline.events; a computation is live when live on each. */
  constructor(private readonly partitions: number) {}

  apply(status: AudienceStatus): void {
    let parts = this.byComputation.get(status.computationId);
    if (!parts) this.byComputation.set(status.computationId, (parts = new Map()));
    parts.set(status.partition, status);
  }

  remove(key: string): void {
    const i = key.lastIndexOf(':');
    this.byComputation.get(key.slice(0, i))?.delete(Number(key.slice(i + 1)));
  }

  statusOf(computationId: string): ComputationStatus {
    const parts = [...(this.byComputation.get(computationId)?.values() ?? [])];
    const live = parts.filter((s) => s.live);
    return {
      state: live.length >= this.partitions ? 'live' : 'computing',
      members: live.reduce((n, s) => n + s.members, 0),
    };
  }
}

/** Follows hookline.audience-status into a StatusBoard (every process: the admin API reads it). */
export async function startStatusIndex(options: {
  kafka: Kafka;
  admin: Admin;
  topic: string;
  partitions: number;
  groupIdPrefix: string;
  logger: Logger;
}): Promise<{ board: StatusBoard; stop(): Promise<void> }> {
  const board = new StatusBoard(options.partitions);
  const follower: Follower = await startIndexer({
    ...options,
    decode: async (record) => decodeStatus(record.value),
    apply: (_record, status) => board.apply(status),
    tombstone: (record) => board.remove(record.key?.toString('utf8') ?? ''),
  });
  return { board, stop: () => follower.stop() };
}
