import os from 'node:os';
import { ConfigError } from '../../../../src/core/errors';
import { deadLetterId } from '../../../../src/operations/dead-letters/dead-letter';
import { checkIndexDir } from '../../../../src/operations/dead-letters/files';
import { at, deadTask, newStore, redrivenRecord, taskRecord, undecodableRecord } from '../fixtures';

function stateWith() {
  const state = newStore();
  state.apply(at(0, 0), taskRecord(deadTask({ messageId: 'm1', destinationId: 'dst_a', at: 1_000 })));
  state.apply(at(0, 1), taskRecord(deadTask({ messageId: 'm2', destinationId: 'dst_b', at: 2_000 })));
  state.apply(at(0, 2), undecodableRecord(3_000));
  state.apply(
    at(0, 3),
    taskRecord(
      deadTask({ messageId: 'm3', destinationId: 'dst_a', at: 4_000, deadLetterReason: 'http_410' }),
    ),
  );
  return state;
}

const ids = (entries: Parameters<typeof deadLetterId>[0][]) => entries.map(deadLetterId);

describe('DlqStore', () => {
  it.each([
    ['everything', {}, ['src_1:m3:dst_a', 'undecodable:0:2', 'src_1:m2:dst_b', 'src_1:m1:dst_a']],
    [
      'one destination (no undecodable records)',
      { destinationId: 'dst_a' },
      ['src_1:m3:dst_a', 'src_1:m1:dst_a'],
    ],
    ['one reason', { reason: 'http_410' }, ['src_1:m3:dst_a']],
    ['an undecodable record’s reason', { reason: 'corrupt' }, ['undecodable:0:2']],
    ['since, inclusive', { sinceMs: 2_000 }, ['src_1:m3:dst_a', 'undecodable:0:2', 'src_1:m2:dst_b']],
    ['until, exclusive', { untilMs: 3_000 }, ['src_1:m2:dst_b', 'src_1:m1:dst_a']],
    [
      'a time range and a destination',
      { sinceMs: 1_500, untilMs: 5_000, destinationId: 'dst_a' },
      ['src_1:m3:dst_a'],
    ],
    ['task ids', { taskIds: new Set(['src_1:m1:dst_a', 'undecodable:0:2']) }, ['src_1:m1:dst_a']],
    ['an unknown destination', { destinationId: 'dst_nope' }, []],
    ['an unknown reason', { reason: 'nope' }, []],
  ])('lists %s, newest first, with the total', async (_case, filter, expected) => {
    const { deadLetters, total } = await stateWith().list(filter, 100);
    expect(ids(deadLetters)).toEqual(expected);
    expect(total).toBe(expected.length);
  });

  it('answers a page of the newest and counts every match', async () => {
    const state = newStore();
    for (let i = 0; i < 50; i++) {
      // Times out of offset order, so the page is chosen by time, not by position.
      state.apply(at(i % 2, i), taskRecord(deadTask({ messageId: `m${i}`, at: ((i * 37) % 50) * 10 })));
    }
    const { deadLetters, total } = await state.list({}, 3);
    expect(total).toBe(50);
    expect(deadLetters.map((e) => e.kind === 'task' && e.task.deadLetteredAtMs)).toEqual([490, 480, 470]);
  });

  it('applies a record at a position once', async () => {
    const state = stateWith();
    state.apply(at(0, 0), taskRecord(deadTask({ messageId: 'm1', destinationId: 'dst_a' })));
    expect((await state.list({}, 100)).total).toBe(4);
    expect(await state.find('src_1:m1:dst_a')).toHaveLength(1);
  });

  it('marks the dead letter a marker names, even when the marker comes first, keeping the first time', async () => {
    const state = newStore();
    state.apply(at(1, 9), redrivenRecord('src_1:m1:dst_a', 0, '4', 5_000));
    state.apply(at(0, 4), taskRecord(deadTask({ messageId: 'm1' })));
    state.apply(at(1, 10), redrivenRecord('src_1:m1:dst_a', 0, '4', 6_000));
    const { deadLetters } = await state.list({}, 10);
    expect(deadLetters[0]!.redrivenAtMs).toBe(5_000);
    expect(await state.pendingTasks()).toEqual([]);
    expect(state.counts()).toEqual({ tasks: 1, pendingTasks: 0, undecodable: 0 });
  });

  it('treats a task dead-lettered again after a redrive as a new, pending dead letter', async () => {
    const state = newStore();
    state.apply(at(0, 0), taskRecord(deadTask({ at: 1_000 })));
    state.apply(at(0, 1), redrivenRecord('src_1:m1:dst_a', 0, '0', 1_500));
    state.apply(at(0, 2), taskRecord(deadTask({ at: 2_000 })));
    expect((await state.find('src_1:m1:dst_a')).map((e) => [e.position.offset, e.redrivenAtMs])).toEqual([
      ['0', 1_500],
      ['2', undefined],
    ]);
    expect((await state.pendingTasks()).map((e) => e.position.offset)).toEqual(['2']);
    expect(state.counts()).toEqual({ tasks: 2, pendingTasks: 1, undecodable: 0 });
  });

  it('finds undecodable records by their position id, and nothing for unknown ids', async () => {
    const state = stateWith();
    expect(await state.find('undecodable:0:2')).toMatchObject([
      { kind: 'undecodable', copy: { reason: 'corrupt' } },
    ]);
    expect(await state.find('undecodable:0:3')).toEqual([]);
    expect(await state.find('undecodable:7:0')).toEqual([]);
    expect(await state.find('src_1:nope:dst_a')).toEqual([]);
  });

  it('finds several ids in one go', async () => {
    const found = await stateWith().findMany(['src_1:m1:dst_a', 'undecodable:0:2', 'nope']);
    expect([...found.keys()].sort()).toEqual(['src_1:m1:dst_a', 'undecodable:0:2']);
  });

  it('answers the same once its write buffer has been flushed to disk and the cache evicted', async () => {
    const state = newStore(1);
    const payload = 'x'.repeat(100_000); // 20 of these pass the 1 MB write buffer
    for (let i = 0; i < 20; i++) {
      state.apply(at(0, i), taskRecord(deadTask({ messageId: `m${i}`, at: i, payload })));
    }
    const first = await state.find('src_1:m0:dst_a');
    expect(first[0]!.kind === 'task' && first[0]!.task.payload).toBe(payload);
    const { deadLetters } = await state.list({ destinationId: 'dst_a' }, 2);
    expect(ids(deadLetters)).toEqual(['src_1:m19:dst_a', 'src_1:m18:dst_a']);
  });

  it('keeps a dead letter larger than its write buffer', async () => {
    const state = newStore(0);
    const payload = 'y'.repeat(1_500_000);
    state.apply(at(0, 0), taskRecord(deadTask({ messageId: 'm0', at: 1 })));
    state.apply(at(0, 1), taskRecord(deadTask({ messageId: 'big', at: 2, payload })));
    state.apply(at(0, 2), taskRecord(deadTask({ messageId: 'm2', at: 3 })));
    const [big] = await state.find('src_1:big:dst_a');
    expect(big!.kind === 'task' && big!.task.payload.length).toBe(payload.length);
    expect(ids((await state.list({}, 10)).deadLetters)).toEqual([
      'src_1:m2:dst_a',
      'src_1:big:dst_a',
      'src_1:m0:dst_a',
    ]);
  });

  it('refuses, naming the setting, a directory where it cannot make files', () => {
    expect(() => checkIndexDir(os.tmpdir())).not.toThrow();
    expect(() => checkIndexDir('/dev/null/dlq')).toThrow(ConfigError);
    expect(() => checkIndexDir('/dev/null/dlq')).toThrow(/^HOOKLINE_DLQ_INDEX_DIR: cannot create/);
  });
});
