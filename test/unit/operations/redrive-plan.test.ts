import { freshTask, planRedrive, type DestinationStatus } from '../../../src/operations/redrive-plan';
import { at, deadTask, newStore, redrivenRecord, taskRecord, undecodableRecord } from './fixtures';

const statuses: Record<string, DestinationStatus> = {
  dst_a: 'enabled',
  dst_b: 'enabled',
  dst_off: 'disabled',
};
const status = (id: string): DestinationStatus => statuses[id] ?? 'deleted';

function state() {
  const s = newStore();
  s.apply(at(0, 0), taskRecord(deadTask({ messageId: 'm1', at: 1_000 })));
  s.apply(at(0, 1), taskRecord(deadTask({ messageId: 'm2', destinationId: 'dst_b', at: 2_000 })));
  s.apply(at(0, 2), taskRecord(deadTask({ messageId: 'm3', at: 3_000 })));
  s.apply(at(0, 3), redrivenRecord('src_1:m3:dst_a', 0, '2', 3_500));
  s.apply(at(0, 4), taskRecord(deadTask({ messageId: 'm4', destinationId: 'dst_off', at: 4_000 })));
  s.apply(at(0, 5), taskRecord(deadTask({ messageId: 'm5', destinationId: 'dst_gone', at: 5_000 })));
  s.apply(at(0, 6), undecodableRecord(6_000));
  // m1 dead-lettered twice (e.g. replayed, then given up again): sent once, both marked.
  s.apply(at(0, 7), taskRecord(deadTask({ messageId: 'm1', at: 7_000 })));
  return s;
}

describe('planRedrive', () => {
  it.each([
    ['everything pending', {}, ['src_1:m2:dst_b', 'src_1:m1:dst_a']],
    ['one destination', { destinationId: 'dst_b' }, ['src_1:m2:dst_b']],
    [
      'a time range (latest dead letter of m1 outside it)',
      { sinceMs: 500, untilMs: 2_500 },
      ['src_1:m1:dst_a', 'src_1:m2:dst_b'],
    ],
    ['named tasks', { taskIds: ['src_1:m1:dst_a'] }, ['src_1:m1:dst_a']],
    ['a redriven task by name', { taskIds: ['src_1:m3:dst_a'] }, []],
  ])('sends %s, oldest first', async (_case, request, expected) => {
    expect((await planRedrive(state(), request, status)).send.map((e) => e.task.taskId)).toEqual(expected);
  });

  it('sends the latest dead letter of a task once and marks all its pending ones', async () => {
    const plan = await planRedrive(state(), { destinationId: 'dst_a' }, status);
    expect(plan.send.map((e) => e.position.offset)).toEqual(['7']);
    expect(plan.mark.map((e) => e.position.offset)).toEqual(['0', '7']);
  });

  it('skips tasks of disabled or deleted destinations, and says why named tasks are not sent', async () => {
    const plan = await planRedrive(
      state(),
      {
        taskIds: [
          'src_1:m4:dst_off',
          'src_1:m5:dst_gone',
          'src_1:m3:dst_a',
          'undecodable:0:6',
          'nope',
          'src_1:m2:dst_b',
        ],
        sinceMs: 4_000,
      },
      status,
    );
    expect(plan.send).toEqual([]);
    expect(plan.skipped).toEqual([
      { id: 'src_1:m4:dst_off', reason: 'destination_disabled' },
      { id: 'src_1:m5:dst_gone', reason: 'destination_deleted' },
      { id: 'src_1:m3:dst_a', reason: 'already_redriven' },
      { id: 'undecodable:0:6', reason: 'not_redrivable' },
      { id: 'nope', reason: 'not_found' },
      { id: 'src_1:m2:dst_b', reason: 'not_matching' },
    ]);
  });
});

describe('freshTask', () => {
  it('starts over (attempts 0, new retry window, no dead-letter fields) and keeps the history', () => {
    const dead = deadTask();
    const redrivenAtMs = dead.receivedAtMs + 5 * 3_600_000;
    const fresh = freshTask(dead, redrivenAtMs);
    expect(fresh).toEqual({
      taskId: dead.taskId,
      destinationId: dead.destinationId,
      sourceId: dead.sourceId,
      messageId: dead.messageId,
      eventType: dead.eventType,
      userKey: dead.userKey,
      payload: dead.payload,
      receivedAtMs: dead.receivedAtMs,
      attempts: 0,
      history: dead.history,
      reissuedAtMs: redrivenAtMs,
    });
    expect(fresh.history).not.toBe(dead.history);
    expect(dead.deadLetterReason).toBe('retry_cutoff');
  });

  it('restarts the cutoff clock at the redrive of a task redriven before', () => {
    const again = freshTask({ ...deadTask(), reissuedAtMs: 1_000 }, 9_000);
    expect(again.reissuedAtMs).toBe(9_000);
  });
});
