import { DlqState, deadLetterId } from '../../../src/operations/dlq-state';
import { at, deadTask, redrivenRecord, taskRecord, undecodableRecord } from './fixtures';

function stateWith(): DlqState {
  const state = new DlqState();
  state.apply(at(0, 0), taskRecord(deadTask({ messageId: 'm1', destinationId: 'dst_a', at: 1_000 })));
  state.apply(at(0, 1), taskRecord(deadTask({ messageId: 'm2', destinationId: 'dst_b', at: 2_000 })));
  state.apply(at(0, 2), undecodableRecord(3_000));
  state.apply(at(0, 3), taskRecord(deadTask({ messageId: 'm3', destinationId: 'dst_a', at: 4_000 })));
  return state;
}

const ids = (entries: Parameters<typeof deadLetterId>[0][]) => entries.map(deadLetterId);

describe('DlqState', () => {
  it.each([
    ['everything', {}, ['src_1:m3:dst_a', 'undecodable:0:2', 'src_1:m2:dst_b', 'src_1:m1:dst_a']],
    [
      'one destination (no undecodable records)',
      { destinationId: 'dst_a' },
      ['src_1:m3:dst_a', 'src_1:m1:dst_a'],
    ],
    ['since, inclusive', { sinceMs: 2_000 }, ['src_1:m3:dst_a', 'undecodable:0:2', 'src_1:m2:dst_b']],
    ['until, exclusive', { untilMs: 3_000 }, ['src_1:m2:dst_b', 'src_1:m1:dst_a']],
    [
      'a time range and a destination',
      { sinceMs: 1_500, untilMs: 5_000, destinationId: 'dst_a' },
      ['src_1:m3:dst_a'],
    ],
    ['task ids', { taskIds: new Set(['src_1:m1:dst_a', 'undecodable:0:2']) }, ['src_1:m1:dst_a']],
  ])('lists %s, newest first', (_case, filter, expected) => {
    expect(ids(stateWith().list(filter))).toEqual(expected);
  });

  it('applies a record at a position once', () => {
    const state = stateWith();
    state.apply(at(0, 0), taskRecord(deadTask({ messageId: 'm1', destinationId: 'dst_a' })));
    expect(state.list()).toHaveLength(4);
    expect(state.find('src_1:m1:dst_a')).toHaveLength(1);
  });

  it('marks the dead letter a marker names, even when the marker comes first, keeping the first time', () => {
    const state = new DlqState();
    state.apply(at(1, 9), redrivenRecord('src_1:m1:dst_a', 0, '4', 5_000));
    state.apply(at(0, 4), taskRecord(deadTask({ messageId: 'm1' })));
    state.apply(at(1, 10), redrivenRecord('src_1:m1:dst_a', 0, '4', 6_000));
    const [entry] = state.list();
    expect(state.redrivenAtMs(entry!)).toBe(5_000);
    expect(state.pendingTasks()).toEqual([]);
  });

  it('treats a task dead-lettered again after a redrive as a new, pending dead letter', () => {
    const state = new DlqState();
    state.apply(at(0, 0), taskRecord(deadTask({ at: 1_000 })));
    state.apply(at(0, 1), redrivenRecord('src_1:m1:dst_a', 0, '0', 1_500));
    state.apply(at(0, 2), taskRecord(deadTask({ at: 2_000 })));
    expect(state.find('src_1:m1:dst_a').map((e) => e.position.offset)).toEqual(['0', '2']);
    expect(state.pendingTasks().map((e) => e.position.offset)).toEqual(['2']);
    expect(state.counts()).toEqual({ tasks: 2, pendingTasks: 1, undecodable: 0 });
  });

  it('finds undecodable records by their position id', () => {
    expect(stateWith().find('undecodable:0:2')).toMatchObject([
      { kind: 'undecodable', copy: { reason: 'corrupt' } },
    ]);
    expect(stateWith().find('src_1:nope:dst_a')).toEqual([]);
  });
});
