import { cutBatch, type QueuedItem } from '../../../src/producer/batch-cut';

/** Items of the given byte sizes, seqs 1..n. */
const items = (...bytes: number[]): QueuedItem<string>[] =>
  bytes.map((b, i) => ({ seq: i + 1, payload: `m${i + 1}`, messageId: `id${i + 1}`, bytes: b }));

const limits = { flushAt: 20, maxBatchBytes: 100, batchOverheadBytes: 0, dueThroughSeq: Infinity };

describe('cutBatch', () => {
  it.each([
    ['an empty queue: nothing', items(), {}, { count: 0, bytes: 0 }],
    ['everything due, under both limits', items(10, 20, 30), {}, { count: 3, bytes: 60 }],
    ['at most flushAt calls', items(1, 1, 1, 1), { flushAt: 3 }, { count: 3, bytes: 3 }],
    ['flushAt 1: one call, one send', items(1, 1), { flushAt: 1 }, { count: 1, bytes: 1 }],
    ['up to maxBatchBytes exactly', items(50, 50, 1), {}, { count: 2, bytes: 100 }],
    ['the next call would go over: it waits', items(60, 41), {}, { count: 1, bytes: 60 }],
    ['the batch overhead counts', items(50, 45), { batchOverheadBytes: 10 }, { count: 1, bytes: 60 }],
    ['the first call goes even when over alone', items(150, 1), {}, { count: 1, bytes: 150 }],
    ['only due calls', items(1, 1, 1), { dueThroughSeq: 2 }, { count: 2, bytes: 2 }],
    ['none due: nothing', items(1), { dueThroughSeq: 0 }, { count: 0, bytes: 0 }],
  ])('%s', (_name, queue, overrides, expected) => {
    expect(cutBatch(queue, { ...limits, ...overrides })).toEqual(expected);
  });
});
