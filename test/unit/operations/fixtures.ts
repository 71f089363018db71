import os from 'node:os';
import { DlqStore } from '../../../src/operations/dead-letters/store';
import type { DeliveryTask } from '../../../src/records/delivery-task';
import type { DlqRecord } from '../../../src/records/dlq';

/** A dead-lettered task; `at` is its deadLetteredAt. */
export function deadTask(overrides: Partial<DeliveryTask> & { at?: number } = {}): DeliveryTask {
  const { at = 1_000, ...rest } = overrides;
  const destinationId = rest.destinationId ?? 'dst_a';
  const messageId = rest.messageId ?? 'm1';
  return {
    taskId: `src_1:${messageId}:${destinationId}`,
    destinationId,
    sourceId: 'src_1',
    messageId,
    eventType: 'track',
    userKey: 'u1',
    payload: `{"messageId":"${messageId}"}`,
    receivedAtMs: 100,
    attempts: 2,
    firstAttemptAtMs: 200,
    dueAtMs: 600,
    history: [
      { atMs: 200, durationMs: 5, urlIndex: 0, status: 503, result: 'http_5xx' },
      { atMs: 600, durationMs: 7, urlIndex: 0, result: 'timeout', error: 'timed out' },
    ],
    deadLetterReason: 'retry_cutoff',
    deadLetteredAtMs: at,
    ...rest,
  };
}

export const taskRecord = (task: DeliveryTask): DlqRecord => ({ kind: 'task', task });

export const undecodableRecord = (at: number): DlqRecord => ({
  kind: 'undecodable',
  copy: {
    topic: 'h.deliveries',
    partition: 1,
    offset: 7,
    reason: 'corrupt',
    deadLetteredAtMs: at,
    valueBytes: 3,
  },
});

export const redrivenRecord = (taskId: string, partition: number, offset: string, at: number): DlqRecord => ({
  kind: 'redriven',
  marker: { taskId, deadLetter: { partition, offset }, redrivenAtMs: at },
});

export const at = (partition: number, offset: number) => ({ partition, offset: String(offset) });

const stores: DlqStore[] = [];
afterAll(() => stores.splice(0).forEach((s) => s.close()));

/** A dead-letter index on files in the temporary directory, closed after the test file. */
export function newStore(cacheEntries = 2): DlqStore {
  const store = new DlqStore({ dir: os.tmpdir(), cacheEntries });
  stores.push(store);
  return store;
}
